"""Leaves a file in /dev/shm to survive the review (and to meet the next one). Expected: the
write lands in the child's private /dev/shm, gone with it; the host's /dev/shm never has it."""

import os


def attack(t: dict) -> dict:
    path = os.path.join("/dev/shm", t.get("name", "kreview-hostile"))
    try:
        with open(path, "w") as fh:
            fh.write("persisted")
        return {"wrote": True}
    except OSError:
        return {"wrote": False}


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

