"""Every file under tests/kernels/compiled_* gets the compiled-code concerns its docstring names
(``Compiled: code, ...`` or ``none``), each quoting IR lines and its source line, and the verdicts its
``Expect:`` line names: a compiled-code concern never changes a verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize, submissions

FILES = submissions("compiled_matmul") + submissions("compiled_fp8") + submissions("compiled_colsum")


def compiled_expectation(path: Path) -> set[str]:
    for line in path.read_text().splitlines()[:40]:
        if line.strip().startswith("Compiled:"):
            codes = {c.strip() for c in line.split(":", 1)[1].split(",")}
            return set() if codes == {"none"} else codes
    raise AssertionError(f"{path} has no 'Compiled:' line in its docstring")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_compiled_code_findings(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(path, tmp_path / "sub")
    want = expectations(path)
    review = start_review(sub, config.model_copy(update={"only": ["builds", "resources",
                                                                        "compiled_code"]}))
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    assert {k: got[k] for k in want} == want, [e.summary for e in review.evidence]
    items = [e for e in review.evidence if e.tool == "compiled_code"]
    resources = [e for e in review.evidence if e.tool == "resources" and e.outcome in ("pass", "fail")]
    assert items and len(items) == len(resources), [e.summary for e in review.evidence]
    assert all(e.outcome == "info" for e in items)
    findings = [f for f in review.findings if any(c.startswith("compiled_code-") for c in f.confirmed_by)]
    assert {f.category for f in findings} == compiled_expectation(path), [f.message for f in findings]
    source = path.read_text().splitlines()
    for f in findings:
        assert f.severity == "warning" and f.spans, f.message
        span = f.spans[0]
        assert span.quote == source[span.start_line - 1]
        assert "ttgir:" in f.message
    for e in items:
        assert all((Path(review.run_dir) / a).exists() for a in e.artifacts)
        # evidence names the submission's own file, not the sandbox's temporary copy
        assert all(o["source_file"] in (None, "submission.py") for o in e.result["observations"])
        assert e.result["resources"]["registers"] > 0
