"""Tries to outlive its child and to reach the process the next child is forked from (a restart on the
CPU forks the sandbox's first process: tools/engine/sandbox/zygote.py). Its first call (no marker in its
home folder yet) leaves a file in /tmp and in /dev/shm, a process running in the background, and tries
the first process's descriptors, memory and environment through /proc/1, and signals to it; its first
call in the next child reports what survived. Expected: nothing reachable (``reached`` empty), nothing
survived (``left`` empty, only the new child and pid 1 in /proc), the role's home folder kept (the marker).
"""

import os
import signal
import subprocess
import sys

_MARK = "zygote-reach-planted"


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
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
        try:
            os.kill(1, sig)
        except OSError:
            pass
    return reached


def attack(t: dict) -> dict:
    home = os.environ.get("HOME", ".")
    mark = os.path.join(home, _MARK)
    if not os.path.exists(mark):
        with open(mark, "w") as fh:
            fh.write("1")
        for folder in ("/tmp", "/dev/shm"):
            with open(os.path.join(folder, _MARK), "w") as fh:
                fh.write("left")
            os.makedirs(os.path.join(folder, _MARK + "-dir", "a", "b"), exist_ok=True)
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
        return {"phase": "planted", "reached": _reach(), "pid": os.getpid()}
    left = [f for f in ("/tmp", "/dev/shm") for n in (_MARK, _MARK + "-dir") if os.path.exists(os.path.join(f, n))]
    others = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid()))
    return {"phase": "found", "left": left, "processes": others, "reached": _reach(), "pid": os.getpid()}


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
