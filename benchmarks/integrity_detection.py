"""Precision and recall of the integrity criterion over the kernel files.

Positives are files whose docstring expects ``integrity=fail`` (one hack each), negatives those
expecting ``integrity=pass`` (correct kernels), under tests/kernels/integrity_*; the correct example
submissions are negatives too. Each is reviewed with builds, correctness and both integrity tools.

    python benchmarks/integrity_detection.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import KERNELS, expectations, materialize, submissions

TOOLS = ["builds", "correctness", "integrity_static", "integrity_runtime"]
EXAMPLES = [ROOT / "examples" / "softmax_triton", ROOT / "examples" / "gpumode_vectoradd"]


def verdict(path: Path, tmp: Path) -> tuple[str, list[str], float]:
    sub = materialize(path, tmp / "sub") if path.is_file() else path
    t0 = time.perf_counter()
    r = start_review(sub, ReviewConfig(runs_dir=tmp / "runs", seed=1234, signoff=False, only=TOOLS,
                                       seeds=1))
    defects = sorted({e.defect or "?" for e in r.evidence if "integrity" in e.criteria and e.outcome == "fail"})
    return r.criterion("integrity").verdict, defects, time.perf_counter() - t0


def main() -> None:
    cases = [(p, expectations(p)["integrity"]) for fam in sorted(KERNELS.glob("integrity_*"))
             for p in submissions(fam.name) if "integrity" in expectations(p)]
    cases += [(p, "pass") for p in EXAMPLES]
    tp = fp = fn = tn = 0
    for path, want in cases:
        with tempfile.TemporaryDirectory(prefix="kreview-detect-") as tmp:
            got, defects, secs = verdict(path, Path(tmp))
        flagged = got == "fail"
        tp += flagged and want == "fail"
        fp += flagged and want == "pass"
        fn += (not flagged) and want == "fail"
        tn += (not flagged) and want == "pass"
        mark = "ok " if (got == "fail") == (want == "fail") else "MISS"
        print(f"{mark} {path.parent.name + '/' + path.stem:48s} want {want:4s} got {got:10s} {secs:5.1f}s {defects}")
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    print(f"hacks {tp + fn}, correct {tn + fp}: TP {tp} FP {fp} FN {fn} TN {tn}; "
          f"precision {precision:.3f}, recall {recall:.3f}")


if __name__ == "__main__":
    main()
