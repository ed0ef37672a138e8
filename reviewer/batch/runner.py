"""Driving a batch: which submissions, what each review asks of a node, results into the store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reviewer import __version__
from reviewer.batch.executors import Executor, Resources, Task
from reviewer.batch.store import BatchRow, BatchStore
from reviewer.batch.task import review_submission, unpack_run
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import KReviewError, UsageError
from reviewer.core.models import Review

_SUBMISSION_FILES = ("kreview.toml", "submission.py", "task.yml")


def _looks_like_submission(d: Path) -> bool:
    return any((d / f).exists() for f in _SUBMISSION_FILES) or any(d.glob("*.py"))


def discover(target: Path) -> list[Path]:
    """A submission directory, a directory of submission directories (an eval set, a leaderboard dump),
    or a text file listing directories one per line (relative to the file; ``#`` starts a comment)."""
    target = Path(target)
    if target.is_file():
        out = []
        for line in target.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                p = Path(line).expanduser()
                out.append((p if p.is_absolute() else target.parent / p).resolve())
        if not out:
            raise UsageError(f"{target} lists no submission directories")
        return out
    if not target.is_dir():
        raise UsageError(f"{target} is neither a directory nor a file listing submission directories")
    if _looks_like_submission(target):
        return [target.resolve()]
    subs = sorted(p.resolve() for p in target.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    if not subs:
        raise UsageError(f"{target} holds no submission directories")
    return subs


@dataclass(frozen=True)
class Plan:
    submission: Path
    config: ReviewConfig
    resources: Resources
    invalid: str | None = None  # why the directory is not a submission (recorded, never reviewed)


def plan(paths: list[Path], config: ReviewConfig, *, gpus_available: bool | None, cpus: float = 1.0,
         memory_mb: int = 2048) -> list[Plan]:
    """Each review's config and resources. With ``device=auto`` a review runs on a GPU (and asks Ray for
    one) when the cluster has GPUs, on CPU otherwise: the device is decided once per batch, never by
    the node a review happens to land on. ``gpus_available=None`` (one machine): ``auto`` stays."""
    from reviewer.ingest import load_submission

    device = config.device
    if device == "auto" and gpus_available is not None:
        device = "cuda" if gpus_available else "cpu"
    out = []
    for p in paths:
        cfg = config.model_copy(update={"device": device})
        res = Resources(num_cpus=cpus, num_gpus=1.0 if device == "cuda" else 0.0, memory_mb=memory_mb)
        why = None
        if not p.is_dir():
            why = f"{p} is not a directory"
        else:
            try:
                load_submission(p, config.format_hint)
            except KReviewError as exc:
                why = str(exc)
        out.append(Plan(p, cfg, res, why))
    return out


def _row(plan_: Plan, value: dict, store: BatchStore, executor: str, attempts: int | None) -> BatchRow:
    review = Review.model_validate_json(value["review"])
    if value.get("version") != __version__:
        raise KReviewError(f"node {value.get('node')} runs kernel-reviewer {value.get('version')}, the driver "
                           f"{__version__}: every node of a batch must run the same reviewer")
    if value.get("archive") is not None:
        unpack_run(value["archive"], store.runs)
    return BatchRow(submission=str(plan_.submission), overall=review.overall,
                    criteria={c.id: c.verdict for c in review.criteria}, seconds=value.get("seconds"),
                    node=value.get("node"), run_id=review.run_id, attempts=attempts, executor=executor)


def run_batch(paths: list[Path], store: BatchStore, config: ReviewConfig, executor: Executor, *,
              gpus_available: bool | None = None, cpus_per_review: float = 1.0, memory_mb_per_review: int = 2048,
              force: bool = False, retry_failed: bool = False, ship: bool | None = None,
              on_row: Callable[[BatchRow, bool], None] | None = None,
              on_start: Callable[[int, int], None] | None = None) -> list[BatchRow]:
    """Review every submission not yet in ``store`` (all with ``force``; failures too with
    ``retry_failed``) and record each result as it arrives. Returns the rows in ``paths`` order.

    ``ship``: send each run directory back from the node (default: for Ray, whose nodes need not share
    this filesystem's run store); otherwise reviews write straight into ``store.runs``."""
    if ship is None:
        ship = executor.name == "ray"
    config = config.model_copy(update={"signoff": False, "runs_dir": store.runs})
    rows: dict[Path, BatchRow] = {}
    todo: list[Plan] = []
    stored = 0
    for pl in plan(paths, config, gpus_available=gpus_available, cpus=cpus_per_review,
                   memory_mb=memory_mb_per_review):
        prior = None if force else store.get(pl.submission)
        if prior is not None and not (retry_failed and prior.status == "reviewer_failure"):
            rows[pl.submission] = prior
            stored += 1
            if on_row:
                on_row(prior, True)
            continue
        if pl.invalid:
            row = BatchRow(submission=str(pl.submission), status="invalid_submission", error=pl.invalid,
                           executor=executor.name)
            store.put(pl.submission, row)
            rows[pl.submission] = row
            if on_row:
                on_row(row, False)
            continue
        todo.append(pl)
    if on_start:  # the directories that are no submission were reported as they were found
        on_start(stored, len(todo))
    by_key = {str(pl.submission): pl for pl in todo}
    tasks = [Task(key=str(pl.submission), fn=review_submission,
                  args=(str(pl.submission), pl.config.model_dump_json(), ship), resources=pl.resources)
             for pl in todo]
    for outcome in executor.run(tasks):
        pl = by_key[outcome.task.key]
        if outcome.error is None:
            try:
                row = _row(pl, outcome.value, store, executor.name, outcome.attempts)
            except (KReviewError, ValueError) as exc:
                row = BatchRow(submission=str(pl.submission), status="reviewer_failure",
                               error=f"{type(exc).__name__}: {exc}", node=outcome.value.get("node"),
                               executor=executor.name)
        else:
            row = BatchRow(submission=str(pl.submission), status="reviewer_failure", error=outcome.error,
                           attempts=outcome.attempts, executor=executor.name)
        store.put(pl.submission, row)
        rows[pl.submission] = row
        if on_row:
            on_row(row, False)
    return [rows[p] for p in paths if p in rows]


def failure_summary(rows: list[BatchRow]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        key = r.overall if r.status == "reviewed" else r.status
        out[str(key)] = out.get(str(key), 0) + 1
    return dict(sorted(out.items()))
