"""Creates sockets of families a network namespace does not cover or that are rarely audited kernel
surfaces: AF_VSOCK (reaches the hypervisor/host across the namespace), AF_ALG, AF_PACKET, AF_XDP,
AF_KCM, AF_TIPC, AF_RDS, AF_BLUETOOTH, AF_CAN, also with junk in the upper 32 bits of the family.
Expected: none is created (the seccomp filter refuses them); AF_UNIX and AF_INET still work."""

import ctypes
import socket

FAMILIES = {"AF_VSOCK": 40, "AF_ALG": 38, "AF_PACKET": 17, "AF_XDP": 44, "AF_KCM": 41, "AF_TIPC": 30,
            "AF_RDS": 21, "AF_BLUETOOTH": 31, "AF_CAN": 29, "AF_AX25": 3, "AF_UNSPEC": 0}


def attack(t: dict) -> dict:
    created = []
    for name, family in FAMILIES.items():
        for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET, socket.SOCK_RAW):
            try:
                socket.socket(family, kind).close()
                created.append(name)
                break
            except OSError:
                pass
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # socket(2) is syscall 41 on x86-64: the family with the upper bits set, the kernel reads an int
    if ctypes.sizeof(ctypes.c_void_p) == 8 and hasattr(socket, "AF_VSOCK"):
        fd = libc.syscall(ctypes.c_long(41), ctypes.c_long((1 << 32) | 40), ctypes.c_long(socket.SOCK_STREAM),
                          ctypes.c_long(0))
        if fd >= 0:
            created.append("AF_VSOCK(upper bits)")
    plain = []
    for family in (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6):
        try:
            socket.socket(family, socket.SOCK_STREAM).close()
            plain.append(int(family))
        except OSError:
            pass
    return {"created": created, "plain": plain}


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
