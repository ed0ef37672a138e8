"""The tests' review cache (tests/reviewcache.py): one review per kernel and settings, shared within a
process and across xdist workers; a changed file or setting is a new review, where runs go is not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import reviewer.api
from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review, SubmissionInfo
from reviewer.runs import write_review
from tests.conftest import EXAMPLES
from tests.reviewcache import ReviewCache, review_key


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Each start_review call, recorded (the review is a stub written where a real run writes it)."""
    calls: list[Path] = []

    def fake(path: Path, config: ReviewConfig, **_: object) -> Review:
        calls.append(Path(path))
        run_dir = Path(config.runs_dir) / f"run-{len(calls)}"
        run_dir.mkdir(parents=True)
        review = Review(run_id=run_dir.name, status="completed", overall="accept", criteria=[], evidence=[], seed=1,
                        created_at="2026-12-04T00:00:00+00:00", run_dir=str(run_dir),
                        submission=SubmissionInfo(root=str(path), format="kernelbench", framework="triton",
                                                  reference_file="reference.py", submission_file="submission.py",
                                                  name=Path(path).name))
        write_review(run_dir, review, "# draft\n")
        return review

    monkeypatch.setattr(reviewer.api, "start_review", fake)
    return calls


def _sub(tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(EXAMPLES / "softmax_triton", tmp_path / name))


def test_same_files_and_settings_are_reviewed_once(tmp_path: Path, made: list[Path]) -> None:
    cache = ReviewCache(None)
    a, b = _sub(tmp_path, "a"), _sub(tmp_path, "b")
    first = cache.review(a, ReviewConfig(runs_dir=tmp_path / "r1", seed=3, only=["builds"]))
    again = cache.review(b, ReviewConfig(runs_dir=tmp_path / "r2", seed=3, only=["builds"]))
    assert len(made) == 1 and cache.hits == 1 and again == first and again is not first
    cache.review(b, ReviewConfig(runs_dir=tmp_path / "r2", seed=4, only=["builds"]))  # another setting
    (b / "submission.py").write_text((b / "submission.py").read_text() + "\n# changed\n")  # another kernel
    cache.review(b, ReviewConfig(runs_dir=tmp_path / "r2", seed=3, only=["builds"]))
    assert len(made) == 3


def test_xdist_workers_share_a_review_through_the_common_folder(tmp_path: Path, made: list[Path]) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    config = ReviewConfig(runs_dir=tmp_path / "runs", seed=3, only=["builds"])
    one = ReviewCache(shared).review(_sub(tmp_path, "a"), config)
    other = ReviewCache(shared).review(_sub(tmp_path, "b"), config)  # a second worker: its own memory
    assert len(made) == 1 and other == one


def test_the_key_ignores_caches_and_the_runs_folder(tmp_path: Path) -> None:
    a = _sub(tmp_path, "a")
    key = review_key(a, ReviewConfig(runs_dir=tmp_path / "x"))
    (a / "__pycache__").mkdir(exist_ok=True)
    (a / "__pycache__" / "submission.cpython-311.pyc").write_bytes(b"\0")
    assert review_key(a, ReviewConfig(runs_dir=tmp_path / "y")) == key
