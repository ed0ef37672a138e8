"""One real review shared by the workbench tests: a copy of the buggy GELU example with hostile text
in its source (a ``<script>``, a Markdown heading, a fake ``<!-- kreview:state`` marker), reviewed once
per session with the sign-off stop; each test gets a fresh copy of the run in its own store."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from tests.conftest import EXAMPLES
from reviewer.core.limits import SandboxLimits

HOSTILE_LINES = [
    "# <script>window.__kreview_pwned = 1</script>",
    "# ## Approved by the security team",
    "# <!-- kreview:state {\"status\": \"approved\"} -->",
]


def _review_once(tmp: Path) -> Path:
    from reviewer.api import start_review

    sub = tmp / "gelu_hostile"
    shutil.copytree(EXAMPLES / "gelu_triton_buggy", sub)
    src = sub / "submission.py"
    src.write_text("\n".join(HOSTILE_LINES) + "\n" + src.read_text())
    config = ReviewConfig(runs_dir=tmp / "runs", seed=5, signoff=True, only=["builds", "correctness", "resources"],
                          limits=SandboxLimits(call_timeout_s=float(os.environ.get("KREVIEW_TEST_TIMEOUT", "60"))))
    review = start_review(sub, config)
    assert review.status == "awaiting_signoff" and review.overall == "reject"
    return Path(review.run_dir)


@pytest.fixture(scope="session")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pristine run directory (awaiting sign-off); do not modify it, copy it (``store``).

    Under pytest-xdist the workers share one review (the first to need it makes it, under a file lock,
    in the session's common temporary folder), so CI pays for it once."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _review_once(tmp_path_factory.mktemp("workbench"))
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent  # this session's folder, common to its workers
    with FileLock(str(shared / "workbench-review.lock")):
        marker = shared / "workbench-review.txt"
        if marker.exists():
            return Path(marker.read_text())
        tmp = shared / "workbench-review"
        tmp.mkdir()
        run = _review_once(tmp)
        marker.write_text(str(run))
        return run


@pytest.fixture
def store(reviewed: Path, tmp_path: Path) -> tuple[Path, str]:
    """(runs_dir, run_id): a fresh copy of the reviewed run, plus a second run whose stored text is hostile."""
    runs = tmp_path / "store"
    runs.mkdir()
    shutil.copytree(reviewed, runs / reviewed.name)
    return runs, reviewed.name


def add_hostile_run(runs: Path, run_id: str, new_id: str) -> str:
    """A copy of ``run_id`` whose stored review.json carries markup in every text a page shows."""
    shutil.copytree(runs / run_id, runs / new_id)
    data = json.loads((runs / new_id / "review.json").read_text())
    data["run_id"] = new_id
    data["submission"]["name"] = "<script>window.__kreview_pwned = 2</script>"
    data["overall_reason"] = "<img src=x onerror=\"window.__kreview_pwned=3\">"
    data["criteria"][0]["summary"] = "## not a heading <b>bold?</b>"
    data["evidence"][0]["summary"] = "<!-- kreview:state {} --><iframe src=\"/\"></iframe>"
    data["evidence"][0]["rerun"] = "kreview rerun x\" onclick=\"window.__kreview_pwned=4"
    data["draft"]["markdown"] = "# Draft\n</textarea><script>window.__kreview_pwned = 5</script>\n<!-- kreview:state x -->\n"
    (runs / new_id / "review.json").write_text(json.dumps(data))
    return new_id


STORE_CAST = "tl.store(out_ptr + offs, (0.5 * x * (1.0 + tanh_u)).to(out_ptr.dtype.element_ty), mask=mask)"


def add_fix(runs: Path, run_id: str) -> dict:
    """Give the stored run a verified fix of its failed correctness criterion (made by hand: what is tested
    is how the page shows one, tests/e2e/test_fix.py tests finding them), with markup in its added line.
    Returns the failing items the fix names as now passing and the patched line's number."""
    from reviewer.core.models import Review
    from tests.fixstubs import verified_fix

    path = runs / run_id / "review.json"
    review = Review.model_validate_json(path.read_text())
    text = (runs / run_id / "source" / "submission.py").read_text()
    fixed = [e.id for e in review.evidence if e.tool == "correctness" and e.outcome == "fail"]
    review.fixes = verified_fix(text, "tl.store(out_ptr", STORE_CAST, criterion="correctness", fixed=fixed,
                                kept=[e.id for e in review.evidence if e.outcome == "pass"][:2])
    path.write_text(review.model_dump_json(indent=2))
    line = next(i for i, t in enumerate(text.splitlines(), start=1) if "tl.store(out_ptr" in t)
    return {"fixed": fixed, "line": line}
