"""Share of rejected known-bad Triton kernels that get a verified fix, and the time the fixer adds.

    python benchmarks/fix_rate.py [FAMILY/FILE.py ...] [--reviews DIR] [--seed 0] [--json OUT.json]

For each known-bad kernel file of tests/kernels (default: every Triton file whose ``Expect:`` line says
``overall=reject``), the submission directory is materialised, reviewed (seed 0, author mode), and, if
rejected, ``reviewer.fix.fix_review`` runs: each candidate rerun in the sandbox on a copy. ``--reviews DIR``
reuses ``DIR/<family>__<file>.json`` (a ``kreview review --format json`` of ``DIR/subs/<family>__<file>`` with the
same seed) instead of reviewing again, and stores there the reviews it makes. Reported per kernel: the review's seconds, the fixer's seconds, the verified fixes (kind,
criterion, lines changed) and the dropped candidates with their reasons; then the share fixed and the median
time added. The machine is shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewer.core.config import ReviewConfig  # noqa: E402
from reviewer.core.models import Review  # noqa: E402
from tests.kernelfiles import KERNELS, expectations, materialize  # noqa: E402


def rejected_triton_files() -> list[str]:
    out = []
    for path in sorted(KERNELS.rglob("*.py")):
        text = path.read_text(errors="replace")
        if "triton" not in text or "@triton.jit" not in text:
            continue
        try:
            want = expectations(path)
        except AssertionError:
            continue
        if want.get("overall") == "reject" or "fail" in want.values():
            out.append(path.relative_to(KERNELS).as_posix())
    return out


def one(rel: str, work: Path, reviews: Path | None, seed: int) -> dict:
    from reviewer.api import start_review
    from reviewer.fix import fix_review

    name = rel.replace("/", "__").removesuffix(".py")
    sub = materialize(KERNELS / rel, (reviews or work) / "subs" / name)
    config = ReviewConfig(seed=seed, signoff=False, runs_dir=work / "runs")
    stored = reviews / f"{name}.json" if reviews else None
    started = time.monotonic()
    if stored is not None and stored.is_file():
        review = Review.model_validate_json(stored.read_text())
        review_s = review.duration_s
        sub = Path(review.submission.root)
    else:
        review = start_review(sub, config)
        review_s = round(time.monotonic() - started, 1)
        if stored is not None:  # kept for the next run, with its submission directory
            stored.write_text(review.model_dump_json(indent=2))
    row = {"kernel": rel, "overall": review.overall, "review_s": review_s,
           "failed": [c.id for c in review.criteria if c.verdict == "fail"]}
    if review.overall != "reject":
        return row
    started = time.monotonic()
    report = fix_review(review, sub, config)
    row.update(fix_s=round(time.monotonic() - started, 1), note=report.note,
               fixes=[{"kind": f.kind, "criterion": f.criterion, "lines": f.lines_changed, "diff": f.diff}
                      for f in report.fixes],
               dropped=[{"kind": d.kind, "criterion": d.criterion, "why": d.why} for d in report.dropped])
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="*",
                    help="FAMILY/FILE.py under tests/kernels (default: every rejected Triton file)")
    ap.add_argument("--reviews", type=Path, help="folder of stored review JSONs to reuse")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kreview-fixrate-") as tmp:
        for rel in args.kernels or rejected_triton_files():
            row = one(rel, Path(tmp), args.reviews, args.seed)
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "fixes"} |
                             {"fixes": [(f["kind"], f["criterion"], f["lines"]) for f in row.get("fixes", [])]}),
                  flush=True)
    rejected = [r for r in rows if r["overall"] == "reject"]
    fixed = [r for r in rejected if r.get("fixes")]
    times = [r["fix_s"] for r in rejected]
    summary = {"kernels": len(rows), "rejected": len(rejected), "verified_fix": len(fixed),
               "share": round(len(fixed) / len(rejected), 2) if rejected else None,
               "fix_s_median": statistics.median(times) if times else None,
               "fix_s_max": max(times) if times else None,
               "review_s_median": statistics.median(r["review_s"] for r in rows) if rows else None,
               "loadavg": os.getloadavg()}
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=2))


if __name__ == "__main__":
    main()
