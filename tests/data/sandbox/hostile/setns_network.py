"""Root escape, step 3: enter the network namespace of PID 1 (setns) and of a fresh user namespace
(unshare), then reach a TCP server on the reviewer's loopback. Expected: refused, unreachable."""

import ctypes
import os
import socket


def attack(t: dict) -> dict:
    libc = ctypes.CDLL(None, use_errno=True)
    entered = False
    for pid in ("1", str(os.getppid())):
        try:
            fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
        except OSError:
            continue
        entered = entered or libc.setns(fd, 0) == 0
        os.close(fd)
    unshared = libc.unshare(0x10000000 | 0x40000000) == 0  # CLONE_NEWUSER | CLONE_NEWNET
    connected = False
    if t.get("port"):
        try:
            with socket.create_connection(("127.0.0.1", int(t["port"])), timeout=2):
                connected = True
        except OSError:
            pass
    return {"escaped": entered or unshared, "connected": connected}


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
    import sys

    print("KREVIEW-HOSTILE " + json.dumps(attack(json.loads(sys.argv[1]))))

