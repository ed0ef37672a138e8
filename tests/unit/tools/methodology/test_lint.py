"""Benchmark-script methodology: each script under tests/data/methodology has exactly the faults its
docstring names (``Methodology:``), each on the line that shows it; the good scripts have none. One
review shows the tool reporting them against a stated claim without touching any verdict."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.conftest import DATA
from tests.kernelfiles import KERNELS, materialize
from tools.methodology.lint import lint

SCRIPTS = sorted((DATA / "methodology").glob("*.py"))


def expected(path: Path) -> set[str]:
    for line in path.read_text().splitlines()[:10]:
        if line.startswith("Methodology:"):
            got = {c.strip() for c in line.split(":", 1)[1].split(",")}
            return set() if got == {"none"} else got
    raise AssertionError(f"{path} has no 'Methodology:' line")


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_script_faults(path: Path) -> None:
    text = path.read_text()
    faults = lint(text)
    assert {f.code for f in faults} == expected(path), faults
    lines = text.splitlines()
    for f in faults:
        assert 0 < f.line <= len(lines) and lines[f.line - 1].strip(), f
    assert not path.stem.startswith("good") or not faults


def test_do_bench_and_unparsable() -> None:
    assert lint("import triton\nfrom submission import f\nprint(triton.testing.do_bench(lambda: f(1)))\n") == []
    assert [f.code for f in lint("def broken(:\n")] == ["unparsable"]


def test_methodology_tool_reports_against_claim(tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(KERNELS / "compiled_colsum" / "good_row_tiles.py", tmp_path / "sub")
    shutil.copy(SCRIPTS[0].parent / "bad_host_timer_async.py", sub / "bench_colsum.py")
    (sub / "kreview.toml").write_text('[claims]\nspeedup = 3.0\nscript = "bench_colsum.py"\n')
    review = start_review(sub, config.model_copy(update={"only": ["builds", "methodology"]}))
    items = [e for e in review.evidence if e.tool == "methodology"]
    assert len(items) == 1 and items[0].outcome == "info" and items[0].result["claim"] == "speedup=3.0"
    found = [f for f in review.findings if f.category.startswith("methodology:")]
    assert [f.category for f in found] == ["methodology:host_timer_async"]
    assert found[0].spans[0].file == "bench_colsum.py" and "perf_counter" in found[0].spans[0].quote
    assert {c.id: c.verdict for c in review.criteria}["builds"] == "pass"
