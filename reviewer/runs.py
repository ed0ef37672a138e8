"""Run directories: ids, ``review.json``, the checkpoint database."""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

from reviewer.core.errors import RunNotFound
from reviewer.core.models import Review

if TYPE_CHECKING:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.checkpoint.serde.base import SerializerProtocol

REVIEW_FILE = "review.json"
DRAFT_FILE = "draft.md"
CHECKPOINT_FILE = "checkpoint.sqlite"


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


STATE_DIR = ".kreview"


def ensure_ignored(path: Path) -> None:
    """Runs kept under a ``.kreview`` folder (the default, relative to the current directory) are
    the reviewer's own state: the folder gets a ``.gitignore`` of ``*``, as pytest's and mypy's caches
    do, so a review run inside a repository leaves nothing untracked behind."""
    p = Path(path).absolute()
    for folder in (p, *p.parents):
        if folder.name == STATE_DIR:
            folder.mkdir(parents=True, exist_ok=True)
            ignore = folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by kreview: its runs are local state, not source\n*\n")
            return


def create_run_dir(runs_dir: Path, run_id: str) -> Path:
    ensure_ignored(runs_dir)
    path = Path(runs_dir) / run_id
    path.mkdir(parents=True, exist_ok=False)
    return path


def is_run_dir(path: Path) -> bool:
    return (path / CHECKPOINT_FILE).exists() or (path / REVIEW_FILE).exists()


def find_run(ref: str, runs_dir: Path) -> Path:
    """A run by id, by a unique prefix of its id (in ``runs_dir``), or by path to its directory."""
    for candidate in (Path(ref), Path(runs_dir) / ref):
        if is_run_dir(candidate):
            return candidate.resolve()
    if ref and "/" not in ref and "\\" not in ref and Path(runs_dir).is_dir():
        matches = sorted(p for p in Path(runs_dir).iterdir() if p.name.startswith(ref) and is_run_dir(p))
        if len(matches) == 1:
            return matches[0].resolve()
        if len(matches) > 1:
            shown = ", ".join(p.name for p in matches[:5]) + (", ..." if len(matches) > 5 else "")
            raise RunNotFound(f"run id prefix {ref!r} matches {len(matches)} runs ({shown}); give more of the id")
    raise RunNotFound(f"no review run {ref!r} (looked in {runs_dir} and at the path itself)")


def write_atomic(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (a sibling temporary file, then a rename): a reader, or a
    driver resuming after a kill, never sees a torn file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def write_review(run_dir: Path, review: Review, markdown: str) -> None:
    write_atomic(run_dir / REVIEW_FILE, review.model_dump_json(indent=2))
    (run_dir / DRAFT_FILE).write_text(markdown)


def read_review(run_dir: Path) -> Review:
    path = run_dir / REVIEW_FILE
    if not path.exists():
        raise RunNotFound(f"{run_dir} has no {REVIEW_FILE} (the review did not reach its draft)")
    return Review.model_validate(json.loads(path.read_text()))


def checkpointer(run_dir: Path, serde: SerializerProtocol | None = None) -> SqliteSaver:
    """The run's checkpoint store; ``serde``: how it writes and reads the state (the graph's,
    ``reviewer.graph.state.checkpoint_serde``; None: LangGraph's default)."""
    from langgraph.checkpoint.sqlite import SqliteSaver  # only where a run is made or resumed

    conn = sqlite3.connect(str(run_dir / CHECKPOINT_FILE), check_same_thread=False)
    return SqliteSaver(conn, serde=serde)


SOURCE_DIR = "source"
_SOURCE_LIMIT = 1 << 20  # bytes per kept file: sources are text; anything larger is not shown anyway


def keep_sources(run_dir: Path, root: Path, files: list[str]) -> None:
    """Copy the reviewed files (submission, reference) into the run, so the run shows the very text
    its evidence cites even after the submission directory changed or (a pull request's checkout) vanished."""
    root = Path(root).resolve()
    for name in dict.fromkeys(f for f in files if f):
        src = (root / name)
        try:
            real = src.resolve()
            if not real.is_relative_to(root) or not real.is_file() or real.stat().st_size > _SOURCE_LIMIT:
                continue
            dest = run_dir / SOURCE_DIR / name
            if not dest.resolve().is_relative_to((run_dir / SOURCE_DIR).resolve()):
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(real.read_bytes())
        except OSError:
            continue
