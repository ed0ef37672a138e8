"""Per-review overhead before and after a change, measured as ratios in one alternating run.

    python benchmarks/overhead_ab.py --before OLD_TREE --after NEW_TREE [--rounds 3]
                                     [--paths DIR ...] [--only TOOL ...] [--json OUT.json]

OLD_TREE and NEW_TREE are source trees of the reviewer (e.g. ``git archive <commit> | tar -x -C
OLD_TREE``); each round reviews the same submissions once with each tree, in a fresh process
(``benchmarks/batch_throughput.py --executors ""`` of *this* tree, copied into both so the meter is
the same), alternating which tree goes first. The machine may be shared and its load changes
minute to minute, so the figures that matter are the after/before ratios of paired runs: review
wall time, the overhead fraction ((wall - time inside the submission and reference calls) / wall)
and the parent's wait for child start-up. Reviews per hour = 3600 / mean review wall (one review at
a time, as ``kreview batch --executor local --workers 1``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = [ROOT / "eval_sets" / "planted" / "relu_ok", ROOT / "examples" / "softmax_triton"]


def one(tree: Path, paths: list[Path], tmp: Path, tag: str, only: list[str]) -> dict:
    bench = tree / "benchmarks" / "batch_throughput.py"
    if bench.resolve() != (ROOT / "benchmarks" / "batch_throughput.py").resolve():
        shutil.copyfile(ROOT / "benchmarks" / "batch_throughput.py", bench)
    out = tmp / f"{tag}.json"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, str(bench), "--executors", "", "--json", str(out), "--paths", *map(str, paths),
                    *[a for t in only for a in ("--only", t)]],
                   check=True, env=env, cwd=tree, stdout=sys.stderr)
    return json.loads(out.read_text())["breakdown"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--paths", type=Path, nargs="+", default=DEFAULT_PATHS)
    ap.add_argument("--only", action="append", default=[], help="run only this tool (repeatable)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    paths = [p.resolve() for p in args.paths]
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="kreview-ab-") as tmp_s:
        tmp = Path(tmp_s)
        for r in range(args.rounds):
            order = [("before", args.before), ("after", args.after)]
            if r % 2:
                order.reverse()
            got = {}
            for name, tree in order:
                load = os.getloadavg()[0]
                got[name] = one(tree.resolve(), paths, tmp, f"{name}-{r}", args.only)
                got[name]["load"] = load
            for i, p in enumerate(paths):
                b, a = got["before"]["reviews"][i], got["after"]["reviews"][i]
                row = {"round": r, "case": p.name, "load": (got["before"]["load"], got["after"]["load"])}
                for key in ("wall_s", "overhead_fraction", "child_start_s", "inside_calls_s", "child_starts"):
                    row[key] = (b[key], a[key])
                row["wall_ratio"] = a["wall_s"] / b["wall_s"]
                row["verdicts_equal"] = b["overall"] == a["overall"]
                rows.append(row)
                print(f"round {r} {p.name:28s} wall {b['wall_s']:6.1f}s -> {a['wall_s']:6.1f}s "
                      f"(x{row['wall_ratio']:.2f})  overhead {b['overhead_fraction']:.1%} -> "
                      f"{a['overhead_fraction']:.1%}  child-start wait {b['child_start_s']:5.1f}s -> "
                      f"{a['child_start_s']:5.1f}s  overall {b['overall']} / {a['overall']}", flush=True)
    summary = {}
    for side, k in (("before", 0), ("after", 1)):
        walls = [r["wall_s"][k] for r in rows]
        inside = [r["inside_calls_s"][k] for r in rows]
        summary[side] = {"mean_wall_s": statistics.mean(walls),
                         "overhead_fraction": (sum(walls) - sum(inside)) / sum(walls),
                         "reviews_per_hour": 3600 / statistics.mean(walls),
                         "child_start_wait_s": statistics.mean(r["child_start_s"][k] for r in rows)}
    ratios = [r["wall_ratio"] for r in rows]
    summary["wall_ratio_median"] = statistics.median(ratios)
    summary["wall_ratio_range"] = (min(ratios), max(ratios))
    summary["verdicts_equal"] = all(r["verdicts_equal"] for r in rows)
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=2))


if __name__ == "__main__":
    main()
