"""Uses more memory than the sandbox's budget in ways a per-process limit (RLIMIT_AS) does not see:
files in the private /dev/shm and /tmp (RAM-backed tmpfs), and forked children each under the
per-process limit. Expected: a tmpfs write stops at its size cap (ENOSPC), and the forked children
together are stopped by the sandbox's memory budget (the call ends as an "oom" crash, not a pass)."""

import os
import time


def _fill(path: str, limit_mb: int) -> int:
    written = 0
    block = b"\1" * 2**20
    try:
        with open(path, "wb") as fh:
            while written < limit_mb:
                fh.write(block)
                fh.flush()
                written += 1
    except OSError:
        pass
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    return written


def attack(t: dict) -> dict:
    report = {"tmpfs_mb": {}}
    for folder in ("/dev/shm", "/tmp"):
        report["tmpfs_mb"][folder] = _fill(os.path.join(folder, "kreview-fill"), int(t.get("tmpfs_try_mb", 3000)))
    if t.get("fork_mb"):
        pids = []
        for _ in range(int(t.get("forks", 3))):
            pid = os.fork()
            if pid == 0:
                try:
                    chunks = [bytearray(2**20) for _ in range(int(t["fork_mb"]))]
                    for c in chunks:
                        c[::4096] = b"\1" * len(c[::4096])
                    # hold it until every sibling holds its share: together, not one after another
                    time.sleep(float(t.get("hold_s", 4)))
                    os._exit(0)
                except MemoryError:
                    os._exit(3)
            pids.append(pid)
        report["forks"] = [os.waitpid(p, 0)[1] for p in pids]
    return report


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
