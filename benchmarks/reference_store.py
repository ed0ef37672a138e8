"""Kernels of one task reviewed with and without the reference store (tools/engine/reference_store.py).

    python benchmarks/reference_store.py [--family integrity_softmax] [--kernels 5] [--json OUT.json]

Reviews the first ``--kernels`` files of a test kernel family (tests/kernels/<family>/, each beside the
family's reference) one after another in this process, with integrity's tools and one seed, first with
the store off, then with a fresh store (its first review fills it). Per pass: wall seconds of each review,
children started by role, and, for every review, whether its evidence (id, outcome, defect, check) is
the same in both passes. Timings on a shared machine are noisy: compare the passes' ratio, and read the
load average printed with them.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOOLS = ["builds", "correctness", "integrity_static", "integrity_runtime"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="integrity_softmax")
    ap.add_argument("--kernels", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from reviewer.api import start_review
    from reviewer.core.config import ReviewConfig
    from tests.kernelfiles import KERNELS, materialize, submissions
    from tools.engine.sandbox import SandboxWorker

    starts: collections.Counter[str] = collections.Counter()
    launch = SandboxWorker.launch

    def counted(self: SandboxWorker) -> None:
        starts[self.name] += 1
        return launch(self)

    SandboxWorker.launch = counted  # type: ignore[method-assign]
    files = submissions(args.family)[: args.kernels]
    tmp = Path(tempfile.mkdtemp(prefix="kreview-refstore-"))
    dirs = [materialize(p, tmp / "subs" / p.stem) for p in files]
    passes: dict[str, dict] = {}
    for name, store in (("off", "off"), ("on", str(tmp / "store"))):
        os.environ["KREVIEW_REFERENCE_CACHE"] = store
        walls, evidence, started = [], [], []
        for d in dirs:
            starts.clear()
            config = ReviewConfig(runs_dir=tmp / f"runs-{name}", seed=1234, signoff=False, seeds=1, only=TOOLS)
            t0 = time.monotonic()
            review = start_review(d, config)
            walls.append(round(time.monotonic() - t0, 2))
            evidence.append([(e.id, e.outcome, e.defect, e.check) for e in review.evidence])
            started.append(dict(starts))
        passes[name] = {"walls_s": walls, "total_s": round(sum(walls), 2), "children": started, "evidence": evidence}
    same = [a == b for a, b in zip(passes["off"]["evidence"], passes["on"]["evidence"])]
    out = {"family": args.family, "kernels": [p.name for p in files], "load": os.getloadavg(),
           "off": {k: v for k, v in passes["off"].items() if k != "evidence"},
           "on": {k: v for k, v in passes["on"].items() if k != "evidence"},
           "ratio_on_off": round(passes["on"]["total_s"] / passes["off"]["total_s"], 3),
           "same_evidence": same}
    text = json.dumps(out, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0 if all(same) else 1


if __name__ == "__main__":
    sys.exit(main())
