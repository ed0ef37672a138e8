"""Cost of one output comparison (tools/engine/compare/compare.py) in the reviewer's own process.

    python benchmarks/compare_speed.py [--repeats 20]

A review compares about a hundred outputs in the parent (the README demo: 108), each while the children
wait. For a few output sizes and dtypes this times ``compare_tensor`` on finite outputs (the usual case)
by the path it takes, and by the general rule (``_finite_path=False``, the path NaN or inf take), median
milliseconds over --repeats calls, both in this process one after the other so they share the machine's
load, and checks the two records are equal. Prints a table and JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.engine.compare.compare import compare_tensor  # noqa: E402

CASES = (((16, 16384), torch.float32), ((128, 4096), torch.float32), ((64, 1000), torch.float32),
         ((4096, 1024), torch.float16), ((127, 127), torch.float16), ((1000,), torch.float64))


def _median_ms(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    g = torch.Generator().manual_seed(0)
    rows = []
    for shape, dtype in CASES:
        e = torch.randn(shape, generator=g).to(dtype)
        a = (e.double() * (1 + 1e-4 * torch.randn(shape, generator=g, dtype=torch.float64))).to(dtype)
        same = compare_tensor("o", a, e, None, None).model_dump() == \
            compare_tensor("o", a, e, None, None, _finite_path=False).model_dump()
        taken = _median_ms(lambda: compare_tensor("o", a, e, None, None), args.repeats)
        general = _median_ms(lambda: compare_tensor("o", a, e, None, None, _finite_path=False), args.repeats)
        rows.append({"shape": list(shape), "dtype": str(dtype).removeprefix("torch."), "ms": round(taken, 2),
                     "general_ms": round(general, 2), "ratio": round(taken / general, 2), "same_record": same})
    print(f"{'shape':>14} {'dtype':>8} {'ms':>8} {'general':>8} {'ratio':>6}  same record")
    for r in rows:
        print(f"{'x'.join(map(str, r['shape'])):>14} {r['dtype']:>8} {r['ms']:>8} {r['general_ms']:>8} "
              f"{r['ratio']:>6}  {r['same_record']}")
    print(json.dumps({"repeats": args.repeats, "threads": torch.get_num_threads(), "cases": rows}))
    return 0 if all(r["same_record"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
