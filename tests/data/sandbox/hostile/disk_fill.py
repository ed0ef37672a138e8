"""Fills the reviewer's disk with many files, each under the per-file limit (RLIMIT_FSIZE), in the folders
the sandbox may write (its working folder and its transfer folder); ``spread`` > 1 leaves some behind
after the call and writes the rest in the next one. Expected: the call ends as a "disk" crash (the
sandbox's disk budget), not a pass, and the files stop there."""

import os


def attack(t: dict) -> dict:
    block = b"\1" * 2**20
    written = 0
    folders = [os.getcwd(), *t.get("folders", [])]
    for i in range(int(t.get("files", 8))):
        folder = folders[i % len(folders)]
        try:
            with open(os.path.join(folder, f"fill-{os.getpid()}-{i}.bin"), "wb") as fh:
                for _ in range(int(t.get("file_mb", 16))):
                    fh.write(block)
            written += int(t.get("file_mb", 16))
        except OSError:
            break
    return {"written_mb": written}


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
