"""The batch store: one result file per submission, written by the driver as each review arrives.

``<out>/results/<key>.json`` (a ``BatchRow``) and ``<runs>/<run_id>/`` (the review's run directory,
sent back from the node that ran it; the command line puts it in the one run store). A result file
is written atomically after its run directory is in place, so a driver killed at any point resumes by
skipping exactly the submissions with a result.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewer.runs import write_atomic

Status = Literal["reviewed", "reviewer_failure", "invalid_submission"]


class BatchRow(BaseModel):
    """One submission's line in a batch's results table."""

    model_config = ConfigDict(extra="forbid")

    submission: str
    overall: str | None = None
    criteria: dict[str, str] = Field(default_factory=dict)
    seconds: float | None = None
    node: str | None = None
    run_id: str | None = None
    status: Status = "reviewed"
    error: str | None = None
    attempts: int | None = None
    executor: str = ""


def key_for(submission: Path) -> str:
    """A file name for a submission: readable, and unique per absolute path."""
    path = str(submission.resolve())
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", submission.resolve().name)[:60] or "submission"
    return f"{slug}-{hashlib.sha256(path.encode()).hexdigest()[:10]}"


class BatchStore:
    def __init__(self, root: Path, runs: Path | None = None) -> None:
        """``runs``: where the reviews' run directories go; the command line passes the run store
        (``--runs-dir``, default .kreview/runs) so that ``kreview runs``, ``show`` and ``serve`` list them
        beside every other review. Default: ``<root>/runs``."""
        self.root = Path(root).resolve()
        self.results = self.root / "results"
        self.runs = Path(runs).resolve() if runs is not None else self.root / "runs"
        self.results.mkdir(parents=True, exist_ok=True)
        self.runs.mkdir(parents=True, exist_ok=True)

    def path_for(self, submission: Path) -> Path:
        return self.results / f"{key_for(submission)}.json"

    def get(self, submission: Path) -> BatchRow | None:
        f = self.path_for(submission)
        if not f.exists():
            return None
        try:
            return BatchRow.model_validate(json.loads(f.read_text()))
        except ValueError:  # a torn or foreign file: review it again
            return None

    def put(self, submission: Path, row: BatchRow) -> None:
        write_atomic(self.path_for(submission), row.model_dump_json(indent=2))


def rows_json(rows: list[BatchRow]) -> str:
    return json.dumps({"results": [r.model_dump(mode="json") for r in rows]}, indent=2) + "\n"


def rows_csv(rows: list[BatchRow]) -> str:
    """The same rows as CSV, one column per criterion (in the order they first appear)."""
    crit: list[str] = []
    for r in rows:
        crit += [c for c in r.criteria if c not in crit]
    head = ["submission", "overall", *crit, "seconds", "node", "run_id", "status", "attempts", "executor", "error"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    for r in rows:
        err = (r.error or "").strip().splitlines()
        w.writerow([r.submission, r.overall or "", *(r.criteria.get(c, "") for c in crit),
                    "" if r.seconds is None else r.seconds, r.node or "", r.run_id or "", r.status,
                    "" if r.attempts is None else r.attempts, r.executor, err[0] if err else ""])
    return buf.getvalue()
