"""Each test kernel is reviewed once per test session, however many tests look at its review.

A review is a function of the kernel and the review's settings alone (not of where the submission folder
or the runs folder is), so two tests that review the same files with the same settings would pay twice
for one answer. ``ReviewCache.review(sub, config)`` keys a review by the bytes of every file of the
submission folder and by ``config`` without its ``runs_dir``; the second test to ask gets a deep copy of
the first one's review (its ``run_dir`` and paths are the first test's, which pytest keeps for the whole
session). Under pytest-xdist the workers share the reviews through the session's common temporary folder:
the first worker to need one makes it under a file lock and records its run folder; the others read its
``review.json`` back as ``kreview show`` does.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review


def review_key(sub: Path, config: ReviewConfig) -> str:
    """The submission folder's files (names and bytes) and every setting but where runs are stored."""
    digest = hashlib.sha256()
    for path in sorted(p for p in sub.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(sub).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    settings = config.model_dump(mode="json", exclude={"runs_dir"})
    digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:24]


class ReviewCache:
    """Reviews made in this session, by ``review_key``; ``shared``: a folder common to the xdist workers."""

    def __init__(self, shared: Path | None) -> None:
        self.shared = shared
        self.made: dict[str, Review] = {}
        self.hits = 0

    def review(self, sub: Path, config: ReviewConfig) -> Review:
        key = review_key(sub, config)
        if key not in self.made:
            self.made[key] = self._make(key, sub, config)
        else:
            self.hits += 1
        return self.made[key].model_copy(deep=True)

    def _make(self, key: str, sub: Path, config: ReviewConfig) -> Review:
        from reviewer.api import start_review
        from reviewer.runs import read_review

        if self.shared is None:
            return start_review(sub, config)
        from filelock import FileLock

        with FileLock(str(self.shared / f"review-{key}.lock")):
            marker = self.shared / f"review-{key}.txt"
            if marker.exists():
                self.hits += 1
                return read_review(Path(marker.read_text()))
            review = start_review(sub, config)
            marker.write_text(str(review.run_dir))
            return review


def shared_folder(basetemp: Path) -> Path | None:
    """The session's folder common to its xdist workers (None without xdist: one process, one memory)."""
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else None
