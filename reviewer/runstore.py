"""The run store as a list: one summary line per run, kept in an index so listing 1,000 runs does not
parse 1,000 ``review.json`` files (each 100 KB or more) every time.

The index (``.kreview-index.json`` in the runs directory) maps a run id to the summary of its
``review.json`` and that file's modification time and size; a run whose file changed, appeared or
vanished is re-read, anything else comes from the index. An unwritable runs directory only costs speed.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from reviewer.runs import CHECKPOINT_FILE, REVIEW_FILE

INDEX_FILE = ".kreview-index.json"
INDEX_VERSION = 1

State = Literal["awaiting_signoff", "approved", "rejected", "completed", "failed", "incomplete", "unreadable"]


class RunSummary(BaseModel):
    run_id: str
    status: State
    overall: str = ""
    name: str = ""
    framework: str = ""
    format: str = ""
    repository: str = ""
    created_at: str = ""
    signed_by: str = ""
    verdicts: dict[str, str] = {}
    """criterion id -> verdict"""
    error: str = ""

    def age_s(self, now: float | None = None) -> float | None:
        try:
            t = datetime.fromisoformat(self.created_at)
        except ValueError:
            return None
        if t.tzinfo is None:
            t = t.replace(tzinfo=UTC)
        return max(0.0, (now if now is not None else time.time()) - t.timestamp())


def human_age(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds)} s"


def repository_of(root: str) -> str:
    """The repository a submission came from: the folder holding ``.git`` above it, else its parent folder."""
    p = Path(root)
    for parent in (p, *p.parents):
        if (parent / ".git").exists():
            return parent.name
    return p.parent.name


def summarize(run_id: str, data: dict) -> RunSummary:
    sub = data.get("submission") or {}
    signoff = data.get("signoff") or {}
    return RunSummary(run_id=data.get("run_id") or run_id, status=data.get("status", "unreadable"),
                      overall=data.get("overall", ""), name=sub.get("name", ""), framework=sub.get("framework", ""),
                      format=sub.get("format", ""), repository=repository_of(sub.get("root", "")) if sub.get("root") else "",
                      created_at=data.get("created_at", ""), signed_by=signoff.get("by", ""),
                      verdicts={c.get("id", "?"): c.get("verdict", "?") for c in data.get("criteria") or []})


def _created_from_id(run_id: str) -> str:
    try:
        t = datetime.strptime(run_id[:15], "%Y%m%d-%H%M%S")
    except ValueError:
        return ""
    return t.replace(tzinfo=UTC).isoformat(timespec="seconds")


def _read_one(path: Path, key: str) -> RunSummary:
    review = path / REVIEW_FILE
    if not review.exists():
        # a run that stopped (or is still running) before its draft: only the checkpoint exists
        return RunSummary(run_id=path.name, status="incomplete", created_at=_created_from_id(path.name),
                          error=f"no {REVIEW_FILE}: the review did not reach its draft (or is still running)")
    try:
        return summarize(path.name, json.loads(review.read_text()))
    except (OSError, ValueError) as exc:
        return RunSummary(run_id=path.name, status="unreadable", created_at=_created_from_id(path.name),
                          error=f"{REVIEW_FILE} unreadable: {type(exc).__name__}")


def _stamp(path: str) -> str:
    try:
        st = os.stat(os.path.join(path, REVIEW_FILE))
        return f"{st.st_mtime_ns}:{st.st_size}"
    except OSError:
        return "none"


def _load_index(runs_dir: Path) -> dict:
    try:
        data = json.loads((runs_dir / INDEX_FILE).read_text())
        if data.get("version") == INDEX_VERSION and isinstance(data.get("runs"), dict):
            return data["runs"]
    except (OSError, ValueError):
        pass
    return {}


def _save_index(runs_dir: Path, runs: dict) -> None:
    tmp = runs_dir / f"{INDEX_FILE}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps({"version": INDEX_VERSION, "runs": runs}))
        tmp.replace(runs_dir / INDEX_FILE)
    except OSError:
        tmp.unlink(missing_ok=True)


def list_runs(runs_dir: Path) -> list[RunSummary]:
    """Every run in ``runs_dir``, newest first (run ids start with their UTC start time)."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    old = _load_index(runs_dir)
    new: dict[str, dict] = {}
    out: list[RunSummary] = []
    changed = False
    with os.scandir(runs_dir) as it:
        entries = [e for e in it if e.is_dir() and not e.name.startswith(".")]
    for entry in entries:
        stamp = _stamp(entry.path)
        if stamp == "none" and not os.path.exists(os.path.join(entry.path, CHECKPOINT_FILE)):
            continue  # not a run folder
        cached = old.get(entry.name)
        if cached and cached.get("stamp") == stamp and stamp != "none" and isinstance(cached.get("summary"), dict):
            # written by list_runs from a validated summary: constructing it again skips 1,000 validations
            summary = RunSummary.model_construct(**cached["summary"])
            new[entry.name] = cached
        else:
            summary = _read_one(Path(entry.path), entry.name)
            changed = True
            new[entry.name] = {"stamp": stamp, "summary": summary.model_dump()}
        out.append(summary)
    if changed or set(new) != set(old):
        _save_index(runs_dir, new)
    out.sort(key=lambda s: (s.created_at or _created_from_id(s.run_id), s.run_id), reverse=True)
    return out


def prunable(runs: list[RunSummary], *, older_than_days: float | None, now: float | None = None) -> list[RunSummary]:
    """Runs ``kreview runs --prune`` removes: runs that never reached a draft (an hour after they
    started, so a running review is left alone) and unreadable ones; with ``older_than_days``, also
    finished runs (signed, completed or failed) older than that. A run awaiting sign-off is never pruned."""
    out = []
    for r in runs:
        age = r.age_s(now)
        if r.status in ("incomplete", "unreadable"):
            if age is None or age > 3600:
                out.append(r)
        elif older_than_days is not None and r.status != "awaiting_signoff" and age is not None \
                and age > older_than_days * 86400:
            out.append(r)
    return out


def remove_run(runs_dir: Path, run_id: str) -> None:
    path = Path(runs_dir) / run_id
    if path.parent.resolve() != Path(runs_dir).resolve() or not path.is_dir():
        raise FileNotFoundError(run_id)
    shutil.rmtree(path)
