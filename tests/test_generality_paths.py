"""GPU MODE benchmark sizes are in scope: a wrapper path only benchmark sizes reach is run at the
smallest sizes that cross its threshold (tools/generality/paths.py), so a fast path that drops the
tail is caught and a correct one passes with the path named (tests/kernels/gpumode_paths); a path
too large to run here is an unverified item naming it, never a pass (gpumode_paths_unrun)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.kernelfiles import expectations, materialize, submissions
from tools.generality.paths import path_sizes, thresholds

FILES = submissions("gpumode_paths") + submissions("gpumode_paths_unrun")


def test_thresholds_are_read_from_host_code_only() -> None:
    src = '''
import triton
BIG = 1 << 20
LIMIT = 2 * BIG

@triton.jit
def k(x, n):
    if n > 999:  # inside a kernel: not a wrapper path
        pass

def wrapper(x):
    n = x.numel()
    if n >= BIG:
        return 1
    return 2 if x.shape[0] < 4096 else (3 if n <= LIMIT else 4)
'''
    got = {(t.value, t.condition) for t in thresholds(src)}
    assert got == {(1 << 20, "n >= BIG"), (4096, "x.shape[0] < 4096"), (1 << 21, "n <= LIMIT")}
    sizes = [v for v, _ in path_sizes(src, 127, [256, 1024, 4096])]
    assert sizes == [4096, 1024, 1025, 1449, 1450]  # 4096 itself, square sides of 2^20 and 2^21
    assert path_sizes(src, 127, [128, 256]) == []  # no benchmark past the thresholds: nothing to add


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_benchmark_only_path_is_run(path: Path, tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(path, tmp_path / "sub")
    r = start_review(sub, config.model_copy(update={"only": ["builds", "correctness", "generality"],
                                                    "seeds": 1}))
    want = expectations(path)
    got = {c.id: c.verdict for c in r.criteria}
    assert {k: got[k] for k in want} == want, [e.summary for e in r.evidence]
    sizes = [e for e in r.evidence if e.tool == "generality" and e.summary.startswith("sizes")]
    if want["generality"] == "unverified":
        # the path starts at 2^26 elements: never passed, named as not run with its condition and line
        unrun = [e for e in sizes if e.defect == "path_not_run"]
        assert unrun and unrun[0].outcome == "unverified" and "`n >= BIG`" in unrun[0].summary, \
            [e.summary for e in sizes]
        assert unrun[0].spans and "n >= BIG" in unrun[0].spans[0].quote
    elif want["generality"] == "fail":
        fail = next(e for e in sizes if e.outcome == "fail")
        assert "size=1025" in fail.summary and "tail" in fail.summary, fail.summary
    else:
        ok = next(e for e in sizes if e.outcome == "pass")
        assert "`n >= BIG`" in ok.summary and "size=1025" in ok.summary, ok.summary
