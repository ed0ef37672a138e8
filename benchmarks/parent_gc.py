"""The reviewer's own garbage collections during one review, with and without ``gc.freeze`` after the imports.

    python benchmarks/parent_gc.py [--example DIR] [--seed 0]

Each arm runs one review (every tool, ``--no-signoff``) in a fresh interpreter and counts the parent
process's collections per generation and the seconds they took (``gc.callbacks``). The ``plain`` arm
replaces ``reviewer.api.freeze_imports`` with a no-op; the ``frozen`` arm is the reviewer as it is. The
two arms alternate; the review's evidence is the same in both (only what the collector walks differs).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_ARM = r"""
import gc, json, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
acc = {{0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}}
t = [0.0]
def cb(phase, info):
    if phase == "start":
        t[0] = time.perf_counter()
    else:
        a = acc[info["generation"]]; a[0] += 1; a[1] += time.perf_counter() - t[0]
gc.callbacks.append(cb)
import reviewer.api as api
from reviewer.core.config import ReviewConfig
if {plain!r}:
    api.freeze_imports = lambda: None
t0 = time.perf_counter()
review = api.start_review(Path({example!r}), ReviewConfig(runs_dir=Path({runs!r}), seed={seed}, signoff=False))
print(json.dumps({{"overall": review.overall, "wall_s": time.perf_counter() - t0, "evidence": len(review.evidence),
                  "collections": {{g: n for g, (n, _) in acc.items()}},
                  "gc_s": {{g: round(s, 3) for g, (_, s) in acc.items()}}}}))
"""


def _arm(plain: bool, example: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as runs:
        code = _ARM.format(root=str(ROOT), plain=plain, example=example, runs=runs, seed=seed)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"review failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--example", default=str(ROOT / "examples" / "softmax_triton"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    for _ in range(args.rounds):
        for name, plain in (("plain", True), ("frozen", False)):
            r = _arm(plain, str(Path(args.example).resolve()), args.seed)
            print(f"{name:7s} {r['overall']} {r['evidence']} items, wall {r['wall_s']:.2f} s, collections "
                  f"{r['collections']}, seconds {r['gc_s']} (total {sum(r['gc_s'].values()):.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
