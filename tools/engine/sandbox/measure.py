"""What isolation a sandbox child is actually under, measured from inside it.

Standard library only; runs in the child first thing (tools/engine/sandbox/child.py) and in the probe
(tools/engine/sandbox/isolation.py), so the review's environment states what held, not what was asked for.
Run as a script it prints the measurement as JSON: ``python -I measure.py '{"write": [...], ...}'``.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import socket
import sys
import uuid


def _status() -> dict[str, str]:
    out = {}
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                k, _, v = line.partition(":")
                out[k] = v.strip()
    except OSError:
        pass
    return out


def _try_write(path: str) -> bool:
    probe = os.path.join(path, f".kreview-write-probe-{uuid.uuid4().hex[:8]}")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return False
    os.close(fd)
    try:
        os.unlink(probe)
    except OSError:
        pass
    return True


def _syscall_errno(fn) -> str:
    try:
        rc = fn()
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, str(exc.errno))
    if rc == 0:
        return "allowed"
    return errno.errorcode.get(ctypes.get_errno(), "?")


def measure(paths: dict | None = None) -> dict:
    """``paths``: {"write": [dirs the child must not write], "absent": [paths it must not see],
    "own": [dirs it must be able to write]}."""
    paths = paths or {}
    st = _status()
    libc = ctypes.CDLL(None, use_errno=True)
    pids = [p for p in os.listdir("/proc") if p.isdigit()] if os.path.isdir("/proc") else []
    try:
        with open("/proc/net/dev") as fh:
            ifaces = sorted(line.split(":")[0].strip() for line in fh.readlines()[2:])
    except OSError:
        ifaces = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: needs a route, never sends anything
        network = "route to the outside"
    except OSError as exc:
        network = errno.errorcode.get(exc.errno or 0, str(exc))
    try:
        with open("/proc/1/cmdline", "rb") as fh:
            pid1 = fh.read().split(b"\0")[0].decode(errors="replace")
    except OSError:
        pid1 = ""
    # a target that does not exist: EPERM means the call was refused before the path was looked up
    mount = _syscall_errno(lambda: libc.mount(b"none", b"/proc/kreview-no-such-dir", b"tmpfs", 0, None))
    unshare = _syscall_errno(lambda: libc.unshare(0x10000000))  # CLONE_NEWUSER
    return {
        "proc_writable": _proc_writable(),
        "uid": os.getuid(),
        "cap_eff": st.get("CapEff", "?"),
        "cap_bnd": st.get("CapBnd", "?"),
        "no_new_privs": st.get("NoNewPrivs", "?"),
        "seccomp": st.get("Seccomp", "?"),
        "pid": os.getpid(),
        "pid1": os.path.basename(pid1),
        "visible_processes": len(pids),
        "net_interfaces": ifaces,
        "network": network,
        "mount": mount,
        "unshare_user": unshare,
        "writable": [p for p in paths.get("write", []) if os.path.isdir(p) and _try_write(p)],
        "present": [p for p in paths.get("absent", []) if os.path.lexists(p)],
        "crowded": sorted(p for p, names in (paths.get("sparse") or {}).items() if _lists_more(p, names)),
        "own_writable": all(_try_write(p) for p in paths.get("own", [])),
    }


# machine-wide /proc files a child must not be able to open for writing (opening one changes nothing;
# only a write would): tools/engine/sandbox/bwrap.py PROC_READONLY
PROC_PROBES = ("/proc/sysrq-trigger", "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname",
               "/proc/sys/vm/drop_caches")


def _proc_writable() -> list[str]:
    out = []
    for path in PROC_PROBES:
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError:
            continue
        os.close(fd)
        out.append(path)
    return out


def _lists_more(path: str, names: list) -> bool:
    """Whether ``path`` holds anything but ``names`` (a folder on the way to a bound one, such as a home
    folder holding a clone of kreview, must show nothing else of the host)."""
    try:
        return bool(set(os.listdir(path)) - set(names))
    except OSError:
        return False


def problems(m: dict) -> list[str]:
    """What in a measurement falls short of the sandbox's promise (empty: all held)."""
    bad = []
    if m.get("cap_eff") not in ("0000000000000000",):
        bad.append(f"capabilities {m.get('cap_eff')}")
    if m.get("seccomp") != "2":
        bad.append(f"seccomp mode {m.get('seccomp')}")
    if m.get("mount") != "EPERM" or m.get("unshare_user") != "EPERM":
        bad.append(f"mount -> {m.get('mount')}, unshare -> {m.get('unshare_user')} (not refused)")
    if m.get("visible_processes", 99) > 8:
        bad.append(f"{m.get('visible_processes')} processes visible in /proc")
    if [i for i in m.get("net_interfaces", []) if i != "lo"]:
        bad.append(f"network interfaces {m.get('net_interfaces')}")
    if m.get("writable"):
        bad.append(f"writable: {m['writable']}")
    if m.get("proc_writable"):
        bad.append(f"machine-wide /proc files writable: {m['proc_writable']}")
    if m.get("present"):
        bad.append(f"visible: {m['present']}")
    if m.get("crowded"):
        bad.append(f"more than the way to kreview's own files visible in: {m['crowded']}")
    if not m.get("own_writable", False):
        bad.append("own directories not writable")
    return bad


if __name__ == "__main__":
    print(json.dumps(measure(json.loads(sys.argv[1]) if len(sys.argv) > 1 else None)))
