"""resources' Triton compiles started ahead (``ResourcesTool.ahead``, once correctness has ended: the
capture, then the compile child, ptxas and nvdisasm in a thread beside the search) give the items the tool
gives when it compiles as it runs (no correctness in the review, so nothing goes ahead): the same ids,
outcomes, defects, summaries, figures and kept files. Only the time they took may differ."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import KERNELS, materialize, without_timings


def _compiles(records: list[logging.LogRecord]) -> set[str]:
    """The threads the compile child's compiles were asked from."""
    return {r.threadName for r in records if "triton_static_compile" in r.getMessage()}


@pytest.mark.slow
def test_compiles_started_ahead_give_the_same_items(tmp_path: Path, config: ReviewConfig,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    sub = materialize(KERNELS / "resources_matmul" / "smem_over_limit.py", tmp_path / "sub")
    caplog.set_level(logging.DEBUG, logger="tools.engine.sandbox.worker")
    got: dict[str, list[dict[str, Any]]] = {}
    threads: dict[str, set[str]] = {}
    for path, tools in (("ahead", ["builds", "correctness", "resources"]), ("as it runs", ["builds", "resources"])):
        caplog.clear()
        review = start_review(sub, config.model_copy(update={"only": tools, "runs_dir": tmp_path / path}))
        threads[path] = _compiles(caplog.records)
        got[path] = [without_timings(e.model_dump(mode="json")) for e in review.evidence if e.tool == "resources"]
    assert threads == {"ahead": {"kreview-resources-compiles"}, "as it runs": {"MainThread"}}
    assert got["ahead"] == got["as it runs"]
    # the file's defect, on both targets, in both
    assert [(e["outcome"], e["defect"], e["result"]["arch"]) for e in got["ahead"]] == \
        [("fail", "smem_over_limit", "sm_90"), ("fail", "smem_over_limit", "sm_80")]
