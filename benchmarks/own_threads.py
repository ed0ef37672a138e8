"""The reviewer's comparisons on one torch thread against the default (one per core), idle and with
every core busy (tools/engine/own_threads.py, issue 34).

    python benchmarks/own_threads.py [--repeats 15]

A review's parent compares outputs while its sandbox children run on the other cores. This times
``compare_tensor`` and the float64 error budget on a few output sizes, in this process, with torch set to
one thread and to ``os.cpu_count()`` threads, first idle and then beside one busy process per core (the
children's stand-in), and prints the median milliseconds of each. Prints a table and JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import timeit
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.engine.compare.budget import error_budget  # noqa: E402
from tools.engine.compare.compare import compare_tensor  # noqa: E402

SHAPES = ((16, 16384), (65537, 16), (64, 1000))


def _burn(stop: multiprocessing.synchronize.Event) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _median_ms(fn, repeats: int) -> float:
    fn()  # warm
    return round(1e3 * statistics.median(timeit.repeat(fn, number=1, repeat=repeats)), 2)


def _one_round(threads: int, repeats: int) -> dict[str, float]:
    torch.set_num_threads(threads)
    g = torch.Generator().manual_seed(0)
    out = {}
    for shape in SHAPES:
        x = torch.randn(shape, generator=g, dtype=torch.float64)
        e, a = x.float(), (x * (1 + 1e-5 * torch.randn(shape, generator=g, dtype=torch.float64))).float()
        out["x".join(map(str, shape))] = _median_ms(lambda: (compare_tensor("o", a, e, None, None),
                                                             error_budget([a], [e], [x])), repeats)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    rows = {}
    for load in ("idle", "busy"):
        stop = multiprocessing.Event()
        burners = [multiprocessing.Process(target=_burn, args=(stop,)) for _ in range(cores if load == "busy" else 0)]
        for p in burners:
            p.start()
        try:
            for threads in (1, cores):
                rows[f"{load}, {threads} thread(s)"] = _one_round(threads, args.repeats)
        finally:
            stop.set()
            for p in burners:
                p.join()
    print(f"{'':24}" + "".join(f"{k:>14}" for k in rows[next(iter(rows))]) + "   (ms: compare + error budget)")
    for name, row in rows.items():
        print(f"{name:24}" + "".join(f"{v:>14}" for v in row.values()))
    print(json.dumps({"cores": cores, "repeats": args.repeats, "ms": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
