"""What a KernelBench-style check concludes on the same case: nominal inputs, 5 trials with seeds
drawn after ``manual_seed(42)``, ``allclose`` with atol = rtol = 1e-4 (fp32) or 1e-2 (fp16/bf16).
Nothing else: no fuzzing, no numerics probes, no integrity checks."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from reviewer.core.config import ReviewConfig
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tools.engine.compare import compare_outputs
from tools.engine.harness.case import Case
from tools.engine.registry import baseline_criterion

TRIALS = 5


def _tolerance(outputs: Any) -> float:
    leaves = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    low = any(isinstance(t, torch.Tensor) and t.dtype in (torch.float16, torch.bfloat16) for t in leaves)
    return 1e-2 if low else 1e-4


def baseline_criteria() -> tuple[str, str]:
    """The criteria the baseline's two verdicts are filed under: that of the tool that imports and runs
    the submission once, and that of the tool that checks its outputs on the nominal inputs
    (``Tool.standard_check``)."""
    return baseline_criterion("runs"), baseline_criterion("nominal_outputs")


def kernelbench_baseline(path: Path, config: ReviewConfig) -> dict[str, Any]:
    """Verdicts under ``baseline_criteria()`` and ``overall``, with the trials."""
    runs_c, outputs_c = baseline_criteria()
    sub = load_submission(path, config.format_hint)
    seeds = [int(s) for s in np.random.default_rng(42).integers(0, 2**31 - 1, TRIALS)]
    nominal = sub.nominal_cases[0]
    with tempfile.TemporaryDirectory(prefix="kreview-baseline-") as tmp:
        ctx = make_tool_context(sub, config, Path(tmp), 42, detect_device(config.device))
        try:
            if sub.syntax_error is not None or not ctx.setup.can_run:
                return {runs_c: "fail" if sub.syntax_error else "unverified", outputs_c: "unverified",
                        "overall": "reject" if sub.syntax_error else "needs_human", "trials": []}
            trials = []
            builds = "pass"
            for seed in seeds:
                params = {**nominal.params, "seed": seed} if "seed" in nominal.params else dict(nominal.params)
                case = Case(id=f"baseline-{seed}", seed=seed, params=params, dtype=sub.dtype)
                ref = ctx.session.reference(case)
                if not ref.ok:
                    return {runs_c: "unverified", outputs_c: "unverified", "overall": "needs_human",
                            "trials": trials, "note": "reference failed"}
                run = ctx.session.run_submission(case, ref, keep_inputs_after=False)
                if not run.ok:
                    builds = "fail"
                    trials.append({"seed": seed, "ok": False, "why": run.call.failure_text()[:200]})
                    break
                tol = _tolerance(ref.outputs)
                cmp = compare_outputs(run.outputs, ref.outputs, atol=tol, rtol=tol)
                trials.append({"seed": seed, "ok": cmp.ok, "why": cmp.reason[:200]})
        finally:
            ctx.session.close()
    correct = builds == "pass" and all(t["ok"] for t in trials)
    return {runs_c: builds, outputs_c: "pass" if correct else ("fail" if builds == "pass" else "unverified"),
            "overall": "accept" if correct else "reject", "trials": trials}
