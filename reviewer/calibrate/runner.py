"""Running the reviewer over an eval set: parallel worker processes, resumable."""

from __future__ import annotations

import json
import multiprocessing
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reviewer.calibrate.evalset import EvalCase
from reviewer.config import ReviewConfig


class CaseResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    overall: str | None = None
    criteria: dict[str, str] = Field(default_factory=dict)
    summaries: dict[str, str] = Field(default_factory=dict)
    evidence: dict[str, list[str]] = Field(default_factory=dict)
    run_id: str | None = None
    run_dir: str | None = None
    duration_s: float = 0.0
    error: str | None = None
    baseline: dict[str, Any] | None = None


def review_case(case_path: str, name: str, config_json: str, baseline: bool) -> dict[str, Any]:
    """One case in a worker process. Never raises: a reviewer failure is recorded as ``error``."""
    from reviewer.api import start_review
    from reviewer.calibrate.baseline import kernelbench_baseline

    config = ReviewConfig.model_validate_json(config_json)
    t0 = time.monotonic()
    out = CaseResult(name=name)
    try:
        review = start_review(case_path, config)
        out.overall = review.overall
        out.criteria = {c.id: c.verdict for c in review.criteria}
        out.summaries = {c.id: c.summary for c in review.criteria}
        out.evidence = {c.id: c.evidence for c in review.criteria}
        out.run_id, out.run_dir = review.run_id, review.run_dir
    except Exception as exc:  # noqa: BLE001 - recorded per case; calibration goes on
        out.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-2000:]}"
    if baseline:
        try:
            out.baseline = kernelbench_baseline(Path(case_path), config)
        except Exception as exc:  # noqa: BLE001
            out.baseline = {"error": f"{type(exc).__name__}: {exc}"}
    out.duration_s = round(time.monotonic() - t0, 2)
    return out.model_dump()


def run_cases(cases: list[EvalCase], out_dir: Path, config: ReviewConfig, *, workers: int, force: bool,
              baseline: bool, on_done: Callable[[CaseResult, bool], None] | None = None) -> list[CaseResult]:
    """Review every case (skipping those already done unless ``force``); results in ``out_dir/cases``."""
    results_dir = out_dir / "cases"
    results_dir.mkdir(parents=True, exist_ok=True)
    config = config.model_copy(update={"signoff": False, "runs_dir": (out_dir / "runs").resolve()})
    results: dict[str, CaseResult] = {}
    todo: list[EvalCase] = []
    for case in cases:
        f = results_dir / f"{case.name}.json"
        if f.exists() and not force:
            prior = CaseResult.model_validate(json.loads(f.read_text()))
            if not baseline or prior.baseline is not None:
                results[case.name] = prior
                if on_done:
                    on_done(prior, True)
                continue
        todo.append(case)

    def record(data: dict[str, Any]) -> None:
        res = CaseResult.model_validate(data)
        (results_dir / f"{res.name}.json").write_text(res.model_dump_json(indent=2))
        results[res.name] = res
        if on_done:
            on_done(res, False)

    cfg = config.model_dump_json()
    if workers <= 1:
        for case in todo:
            record(review_case(str(case.path), case.name, cfg, baseline))
    else:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            futures = {pool.submit(review_case, str(c.path), c.name, cfg, baseline): c for c in todo}
            for fut in as_completed(futures):
                try:
                    record(fut.result())
                except Exception as exc:  # noqa: BLE001 - a worker process died
                    record(CaseResult(name=futures[fut].name, error=f"worker died: {exc}").model_dump())
    return [results[c.name] for c in cases if c.name in results]
