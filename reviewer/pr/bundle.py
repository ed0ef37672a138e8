"""The review artifact: written by the unprivileged job, read (as untrusted data) by the posting job.

Layout: ``bundle.json`` (``Bundle``) and ``runs/<run_id>/`` (review.json, draft.md, checkpoint.sqlite
and artifacts). The posting job extracts it with size and path checks, validates every JSON file
against its model, and accepts a checkpoint database only if its schema is LangGraph's and nothing
else (no views, no triggers).
"""

from __future__ import annotations

import io
import re
import sqlite3
import stat
import zipfile
from pathlib import Path, PurePosixPath

from pydantic import ValidationError

from reviewer.core.errors import GitHubError
from reviewer.core.models import Review
from reviewer.pr.models import Bundle
from reviewer.runs import CHECKPOINT_FILE, REVIEW_FILE

BUNDLE_FILE = "bundle.json"
RUNS = "runs"
# Rationale: a review artifact is kilobytes to a few megabytes; anything far bigger is not ours.
MAX_ARTIFACT_BYTES = 64 * 1024 * 1024
MAX_FILES = 5000
_RUN_ID = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{6}$")
# the tables and indexes langgraph-checkpoint-sqlite creates; anything else in the file is refused
_CHECKPOINT_SCHEMA = {("table", "checkpoints"), ("table", "writes")}


class BadArtifact(GitHubError):
    """The review artifact is malformed or was tampered with."""

    status = "bad_artifact"


def write_bundle(out: Path, bundle: Bundle) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / BUNDLE_FILE
    path.write_text(bundle.model_dump_json(indent=2))
    return path


def extract_zip(data: bytes, dest: Path) -> Path:
    """Extract an artifact zip, refusing links, absolute or escaping paths and oversized contents."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise BadArtifact(f"the artifact is not a zip file: {exc}") from exc
    members = zf.infolist()
    if len(members) > MAX_FILES:
        raise BadArtifact(f"the artifact holds {len(members)} files (limit {MAX_FILES})")
    if sum(m.file_size for m in members) > MAX_ARTIFACT_BYTES:
        raise BadArtifact(f"the artifact unpacks to more than {MAX_ARTIFACT_BYTES} bytes")
    dest.mkdir(parents=True, exist_ok=True)
    for m in members:
        p = PurePosixPath(m.filename)
        if p.is_absolute() or ".." in p.parts or "\\" in m.filename:
            raise BadArtifact(f"the artifact holds a path outside itself: {m.filename!r}")
        if stat.S_ISLNK(m.external_attr >> 16):
            raise BadArtifact(f"the artifact holds a symbolic link: {m.filename!r}")
        target = dest.joinpath(*p.parts)
        if m.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(m) as src:
            target.write_bytes(src.read(MAX_ARTIFACT_BYTES + 1))
    return dest


def check_checkpoint(path: Path) -> None:
    """Refuse a checkpoint database whose schema is not exactly the checkpointer's tables."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            conn.execute("PRAGMA trusted_schema=OFF")
            rows = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
            ok = conn.execute("PRAGMA quick_check").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise BadArtifact(f"{path.name} is not a readable SQLite database: {exc}") from exc
    extra = {(t, n) for t, n in rows
             if (t, n) not in _CHECKPOINT_SCHEMA and not (t == "index" and n.startswith("sqlite_autoindex_"))}
    if extra or not ok or ok[0] != "ok":
        raise BadArtifact(f"{path} has unexpected schema objects {sorted(extra)} or fails its integrity check")


def load_bundle(root: Path) -> tuple[Bundle, dict[str, Review]]:
    """The bundle and the reviews of the runs it names, all validated."""
    path = root / BUNDLE_FILE
    if not path.is_file():
        raise BadArtifact(f"the artifact has no {BUNDLE_FILE}")
    try:
        bundle = Bundle.model_validate_json(path.read_text())
    except (ValidationError, UnicodeDecodeError) as exc:
        raise BadArtifact(f"{BUNDLE_FILE} does not validate: {exc}") from exc
    reviews: dict[str, Review] = {}
    for t in bundle.review.targets:
        for run_id in (t.new_run, t.old_run):
            if run_id is None:
                continue
            if not _RUN_ID.match(run_id):
                raise BadArtifact(f"{BUNDLE_FILE} names a run {run_id!r} that is not a run id")
            run_dir = root / RUNS / run_id
            try:
                review = Review.model_validate_json((run_dir / REVIEW_FILE).read_text())
            except (OSError, ValidationError, UnicodeDecodeError) as exc:
                raise BadArtifact(f"run {run_id}: {REVIEW_FILE} is missing or invalid: {exc}") from exc
            if review.run_id != run_id:
                raise BadArtifact(f"run {run_id}: {REVIEW_FILE} belongs to run {review.run_id}")
            if (run_dir / CHECKPOINT_FILE).exists():
                check_checkpoint(run_dir / CHECKPOINT_FILE)
            reviews[run_id] = review
    return bundle, reviews
