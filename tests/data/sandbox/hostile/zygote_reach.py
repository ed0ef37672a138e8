"""Tries to outlive its child and to reach the process the next child is forked from (a restart on the
CPU forks the sandbox's first process: tools/engine/sandbox/zygote.py). A counter in its home folder
(which a restart keeps, as ever) says which call this is:

1. leaves files and locked folders in /tmp and /dev/shm and a process running in the background, and
   tries the first process's descriptors, memory and environment through /proc/1 and signals it;
2. reports what survived into the next child, then changes what same-user checks let it change in the
   first process (its file limit, its nice value, its memory-kill score), leaves a file in /dev and a
   SysV shared memory segment, and tries to make a POSIX message queue;
3. reports what survived of those.

Expected: nothing reachable (``reached`` empty), nothing survived (``left``, ``processes`` empty), and
after call 2 the restart is a new sandbox, not a fork (what it changed cannot be undone in pid 1).
"""

import ctypes
import os
import resource
import signal
import subprocess
import sys

_MARK = "zygote-reach-calls"
_SHM_KEY = 0x6B7A7279


def _reach() -> list[str]:
    reached = []
    try:
        fds = os.listdir("/proc/1/fd")
    except OSError:
        fds = []
    for name in fds:
        for mode in (os.O_RDONLY, os.O_WRONLY):
            try:
                fd = os.open(f"/proc/1/fd/{name}", mode | os.O_NONBLOCK)
            except OSError:
                continue
            os.close(fd)
            reached.append(f"fd {name} mode {mode}")
    for path, mode in (("/proc/1/mem", os.O_RDWR), ("/proc/1/environ", os.O_RDONLY), ("/proc/1/maps", os.O_RDONLY)):
        try:
            fd = os.open(path, mode)
        except OSError:
            continue
        os.close(fd)
        reached.append(path)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGSEGV, signal.SIGABRT, signal.SIGKILL):
        try:
            os.kill(1, sig)
        except OSError:
            pass
    return reached


def _left() -> dict:
    libc = ctypes.CDLL(None, use_errno=True)
    names = (_MARK, _MARK + "-dir", _MARK + "-locked")
    return {"files": [f for f in ("/tmp", "/dev/shm") for n in names if os.path.lexists(os.path.join(f, n))],
            "dev": os.path.lexists("/dev/" + _MARK),
            "sysv": libc.shmget(_SHM_KEY, 0, 0) != -1,
            "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())),
            "nice": os.getpriority(os.PRIO_PROCESS, 0),
            "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[1],
            "oom_score_adj": open("/proc/self/oom_score_adj").read().strip()}


def _plant() -> None:
    for folder in ("/tmp", "/dev/shm"):
        with open(os.path.join(folder, _MARK), "w") as fh:
            fh.write("left")
        os.makedirs(os.path.join(folder, _MARK + "-dir", "a", "b"), exist_ok=True)
        locked = os.path.join(folder, _MARK + "-locked")
        os.makedirs(os.path.join(locked, "inner"), exist_ok=True)
        os.chmod(locked, 0o500)
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)


def _tamper() -> dict:
    libc = ctypes.CDLL(None, use_errno=True)
    done = {}
    try:
        soft, hard = resource.prlimit(1, resource.RLIMIT_NOFILE)
        resource.prlimit(1, resource.RLIMIT_NOFILE, (min(soft, 1000), min(hard, 1000)))
        done["nofile"] = True
    except OSError:
        done["nofile"] = False
    try:
        os.setpriority(os.PRIO_PROCESS, 1, 5)
        done["nice"] = True
    except OSError:
        done["nice"] = False
    try:
        with open("/proc/1/oom_score_adj", "w") as fh:
            fh.write("500")
        done["oom_score_adj"] = True
    except OSError:
        done["oom_score_adj"] = False
    try:
        with open("/dev/" + _MARK, "w") as fh:
            fh.write("left")
        done["dev"] = True
    except OSError:
        done["dev"] = False
    done["sysv"] = libc.shmget(_SHM_KEY, 4096, 0o1600) != -1
    try:
        rt = ctypes.CDLL("librt.so.1", use_errno=True)
        rt.mq_open.restype = ctypes.c_int
        done["mqueue"] = rt.mq_open(b"/" + _MARK.encode(), os.O_CREAT | os.O_RDWR, 0o600, None) != -1
    except OSError:
        done["mqueue"] = False
    return done


def attack(t: dict) -> dict:
    mark = os.path.join(os.environ.get("HOME", "."), _MARK)
    calls = int(open(mark).read()) if os.path.exists(mark) else 0
    with open(mark, "w") as fh:
        fh.write(str(calls + 1))
    out = {"call": calls + 1, "pid": os.getpid(), "reached": _reach(), "left": _left()}
    if calls == 0:
        _plant()
    if calls == 1:
        out["tampered"] = _tamper()
    return out


# -- the same file is a KernelBench submission (the review runs it) and a stdlib script (the
# unprivileged run of the suite): it reports what it achieved, as JSON, in its exception.
def _targets() -> dict:
    import json
    from pathlib import Path

    p = Path(__file__).with_name("targets.json")
    return json.loads(p.read_text()) if p.exists() else {}


try:
    import torch.nn as _nn
except ImportError:  # run as a script
    _nn = None

if _nn is not None:
    class ModelNew(_nn.Module):
        def forward(self, x):
            import json

            raise RuntimeError("KREVIEW-HOSTILE " + json.dumps(attack(_targets())))

if __name__ == "__main__":
    import json

    print("KREVIEW-HOSTILE " + json.dumps(attack(json.loads(sys.argv[1]))))
