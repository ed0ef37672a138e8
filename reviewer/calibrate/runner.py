"""Running the reviewer over an eval set on an executor (local processes or Ray), resumable."""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reviewer.batch.executors import Executor, LocalExecutor, Resources, Task
from reviewer.batch.task import node_name, pack_run, runs_dir_for, unpack_run
from reviewer.calibrate.evalset import EvalCase
from reviewer.core.config import ReviewConfig
from reviewer.core.task import TaskAudit
from reviewer.runs import write_atomic


class CaseTask(BaseModel):
    """What the review's task audit said of the case's task (reviewer/core/task.py), in brief."""

    model_config = ConfigDict(extra="forbid")

    path: str
    degenerate: bool
    findings: list[str] = Field(default_factory=list)
    """The degenerate findings, each as its kind (and impostor): what lets a wrong kernel pass."""

    @classmethod
    def of(cls, task: TaskAudit | None) -> CaseTask | None:
        if task is None:
            return None
        found = [f.kind + (f" ({f.impostor})" if f.impostor else "") for f in task.findings if f.degenerate]
        return cls(path=task.path, degenerate=task.degenerate, findings=found)


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
    cache_key: str | None = None
    """What the verdicts depend on (see ``cache_key``); a stored result with another key is redone."""
    node: str | None = None
    task: CaseTask | None = None
    """The review's task audit, in brief (None: the review ran no audit)."""


_PACKAGES = ("torch", "triton", "jax", "jaxlib", "numpy", "langgraph")


def _tree_digest(root: Path, h: Any, suffixes: tuple[str, ...] | None = None, skip: tuple[str, ...] = ()) -> None:
    for f in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        if (suffixes and f.suffix not in suffixes) or f.relative_to(root).as_posix() in skip:
            continue
        h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")


def reviewer_fingerprint() -> str:
    """The reviewer's own code, data and the versions of the libraries its checks run on: an edited
    check, rubric or prompt, or another Triton, changes what a verdict can be."""
    import hashlib
    from importlib import metadata

    import reviewer
    import tools
    from reviewer.datafiles import data_dir

    h = hashlib.sha256()
    for pkg in (reviewer, tools):
        _tree_digest(Path(pkg.__file__).parent, h, (".py", ".yaml", ".yml", ".json", ".j2", ".md", ".toml"))
    for kind in ("rubrics", "prompts"):
        try:
            _tree_digest(data_dir(kind), h)
        except FileNotFoundError:
            h.update(f"{kind}=absent;".encode())
    for name in _PACKAGES:
        try:
            h.update(f"{name}={metadata.version(name)};".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name}=absent;".encode())
    return h.hexdigest()


def cache_key(case: EvalCase, config: ReviewConfig, fingerprint: str) -> str:
    """Everything a case's verdicts depend on: the case's files, every setting of the review (seed, seeds,
    tolerances, --only/--skip, limits, device, rubric file and its content), the baseline's settings and
    the reviewer's fingerprint. Where results were written is not part of it."""
    import hashlib

    h = hashlib.sha256(fingerprint.encode())
    settings = config.model_dump(mode="json", exclude={"runs_dir", "signoff"})
    h.update(json.dumps(settings, sort_keys=True).encode())
    if config.rubric is not None and Path(config.rubric).is_file():
        h.update(Path(config.rubric).read_bytes())
    _tree_digest(Path(case.path), h, skip=("grades.json",))  # the human grades do not change a verdict
    return h.hexdigest()[:32]


def review_case(case_path: str, name: str, config_json: str, baseline: bool, ship: bool = False) -> dict[str, Any]:
    """One case in a worker process or Ray task. Never raises: a reviewer failure is recorded as
    ``error``. ``ship``: the run directory comes back packed under ``archive`` (a remote node)."""
    from reviewer.api import start_review
    from reviewer.calibrate.baseline import kernelbench_baseline

    config = ReviewConfig.model_validate_json(config_json)
    t0 = time.monotonic()
    out = CaseResult(name=name, node=node_name())
    archive = None
    try:
        with runs_dir_for(config, ship) as cfg:
            review = start_review(case_path, cfg)
            archive = pack_run(Path(review.run_dir)) if ship else None
        out.overall = review.overall
        out.criteria = {c.id: c.verdict for c in review.criteria}
        out.summaries = {c.id: c.summary for c in review.criteria}
        out.evidence = {c.id: c.evidence for c in review.criteria}
        out.run_id, out.run_dir = review.run_id, review.run_dir
        out.task = CaseTask.of(review.task)
    except Exception as exc:  # noqa: BLE001 - recorded per case; calibration goes on
        out.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-2000:]}"
    if baseline:
        try:
            out.baseline = kernelbench_baseline(Path(case_path), config)
        except Exception as exc:  # noqa: BLE001
            out.baseline = {"error": f"{type(exc).__name__}: {exc}"}
    out.duration_s = round(time.monotonic() - t0, 2)
    return {**out.model_dump(), "archive": archive}


def run_cases(cases: list[EvalCase], out_dir: Path, config: ReviewConfig, *, workers: int, force: bool,
              baseline: bool, on_done: Callable[[CaseResult, bool], None] | None = None,
              executor: Executor | None = None, resources: Resources | None = None) -> list[CaseResult]:
    """Review every case (skipping those already done unless ``force``); results in ``out_dir/cases``.

    ``executor``: where the reviews run (default: ``workers`` local processes). On Ray each run directory
    is sent back and unpacked into ``out_dir/runs``; a case whose task fails twice is an ``error``."""
    results_dir = out_dir / "cases"
    results_dir.mkdir(parents=True, exist_ok=True)
    config = config.model_copy(update={"signoff": False, "runs_dir": (out_dir / "runs").resolve()})
    results: dict[str, CaseResult] = {}
    todo: list[EvalCase] = []
    fingerprint = reviewer_fingerprint()
    keys = {case.name: cache_key(case, config, fingerprint) for case in cases}
    for case in cases:
        f = results_dir / f"{case.name}.json"
        if f.exists() and not force:
            try:
                prior = CaseResult.model_validate(json.loads(f.read_text()))
            except ValueError:  # an older or damaged result file: redo the case
                prior = None
            if prior is not None and prior.cache_key == keys[case.name] and (not baseline or prior.baseline is not None):
                results[case.name] = prior
                if on_done:
                    on_done(prior, True)
                continue
        todo.append(case)

    def record(data: dict[str, Any]) -> None:
        archive = data.pop("archive", None)
        if archive is not None:
            data["run_dir"] = str(unpack_run(archive, Path(config.runs_dir)))
        res = CaseResult.model_validate(data)
        res.cache_key = keys.get(res.name)
        write_atomic(results_dir / f"{res.name}.json", res.model_dump_json(indent=2))  # a killed driver resumes
        results[res.name] = res
        if on_done:
            on_done(res, False)

    cfg = config.model_dump_json()
    executor = executor or LocalExecutor(workers)
    ship = executor.name == "ray"
    tasks = [Task(key=c.name, fn=review_case, args=(str(c.path), c.name, cfg, baseline, ship),
                  resources=resources or Resources()) for c in todo]
    for outcome in executor.run(tasks):
        if outcome.error is None:
            record(outcome.value)
        else:  # the task raised or its process/node died, twice
            record(CaseResult(name=outcome.task.key, error=f"reviewer failure after {outcome.attempts} attempts: "
                              f"{outcome.error}").model_dump())
    return [results[c.name] for c in cases if c.name in results]
