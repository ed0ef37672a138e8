"""Host-code branch coverage (issue 16): the child instrument records only the submission's own
files, and the parent names each branch side no call took, classified by what its condition reads
(tools/generality/branches.py, tools/engine/harness/instruments/host_coverage.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tools.engine.harness.instruments.host_coverage import host_coverage
from tools.engine.source import source_file
from tools.generality.branches import INPUT_KINDS, HostCoverage, unreached, written_state

WRAPPER = '''import os
import triton

DEBUG = os.environ.get("WRAP_DEBUG") == "1"
BIG = 8192


@triton.jit
def kernel(x_ptr, n, BLOCK: "tl.constexpr"):
    if BLOCK > 16:
        pass


def launch(x, out=None):
    if x.dtype not in ("float32", "float16"):
        raise TypeError("unsupported dtype")
    if not x.is_contiguous():
        x = x.contiguous()
    if x.dim() == 1:
        x = x.unsqueeze(0)
    rows, cols = x.shape
    if out is None:
        out = []
    if DEBUG:
        print("debug")
    if cols > BIG:
        out.append("wide")
    elif cols >= 1024:
        out.append("medium")
    else:
        out.append("narrow")
    if x.is_cuda:
        out.append("gpu")
    if x.sum() > 0:
        out.append("positive")
    for _ in range(rows - 4):
        out.append("row")
    helper = lambda n: n + 1  # noqa: E731
    return out, helper(rows)


def never_called(x):
    if x > 3:
        return 1
    return 2
'''


class FakeTensor:
    """Just what ``launch`` reads, so the test needs no torch."""

    def __init__(self, rows: int, cols: int, total: float = -1.0) -> None:
        self.shape, self.dtype, self.is_cuda, self._total = (rows, cols), "float32", False, total

    def is_contiguous(self) -> bool:
        return True

    def dim(self) -> int:
        return 2

    def sum(self) -> float:
        return self._total


def _load(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    path = tmp_path / "pkg" / "wrap.py"
    path.write_text(WRAPPER)
    spec = importlib.util.spec_from_file_location("h16cov_wrap", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["h16cov_wrap"] = module
    spec.loader.exec_module(module)
    return path, module


def _payload(path: Path) -> dict:
    return {"submission_spec": {"submission_path": str(path)},
            "instrument_options": {"host_coverage": {"submission_file": "pkg/wrap.py", "files": ["pkg/wrap.py"]}}}


def test_instrument_records_only_the_submission_files(tmp_path: Path) -> None:
    path, module = _load(tmp_path)
    with host_coverage(_payload(path)) as seen:
        module.launch(FakeTensor(4, 256))
    assert set(seen["arcs"]) == {"pkg/wrap.py"}, seen  # nothing of pytest, this test or the stdlib
    lines = {b for _a, b in seen["arcs"]["pkg/wrap.py"]}
    assert 15 in lines and 16 not in lines  # the dtype test ran, its raise did not
    with host_coverage({}) as seen:
        pass
    assert "error" in seen and seen["arcs"] == {}


def _sides(tmp_path: Path, *calls: FakeTensor):
    path, module = _load(tmp_path)
    cov = HostCoverage()
    for x in calls:
        with host_coverage(_payload(path)) as seen:
            module.launch(x)
        cov.add(seen)
    sides, total, taken = unreached("pkg/wrap.py", WRAPPER, cov.arcs["pkg/wrap.py"])
    return {(s.condition, s.side): s for s in sides}, total, taken


def test_each_untaken_side_is_named_and_classified(tmp_path: Path) -> None:
    sides, total, taken = _sides(tmp_path, FakeTensor(4, 256))
    kinds = {k: s.kind for k, s in sides.items()}
    assert kinds == {
        ('x.dtype not in ("float32", "float16")'.replace('"', "'"), "true"): "invalid_input",
        ("not x.is_contiguous()", "true"): "input",
        ("x.dim() == 1", "true"): "rank",
        ("out is None", "false"): "optional_argument",
        ("DEBUG", "true"): "constant",
        ("cols > BIG", "true"): "threshold",
        ("cols >= 1024", "true"): "threshold",
        ("x.is_cuda", "true"): "device",
        ("x.sum() > 0", "true"): "input",
        ("_ in range(rows - 4)", "body"): "input",
    }, kinds
    wide = sides[("cols > BIG", "true")]
    assert (wide.line, [t.value for t in wide.thresholds]) == (26, [8192])
    assert wide.describe() == "`if cols > BIG` (pkg/wrap.py:26) never true"
    assert sides[("cols >= 1024", "true")].statement == "elif"
    # the kernel's branch and the function never called are not host paths of the task
    assert not any(s.line in (10, 44) for s in sides.values())
    assert (total, taken) == (total, total - len(sides)) and total > len(sides)


def test_a_configuration_that_takes_a_side_removes_it(tmp_path: Path) -> None:
    sides, _total, _taken = _sides(tmp_path, FakeTensor(4, 256), FakeTensor(8, 8193, total=1.0))
    assert ("cols > BIG", "true") not in sides and ("x.sum() > 0", "true") not in sides
    assert ("_ in range(rows - 4)", "body") not in sides
    # only the medium threshold, contiguity and the non-input sides remain
    assert {k for k, s in sides.items() if s.kind in INPUT_KINDS} == {("cols >= 1024", "true"),
                                                                       ("not x.is_contiguous()", "true")}


@pytest.mark.parametrize(("source", "kind"), [
    ("def f(self, x):\n    if self.bias is not None:\n        x = x + 1\n    return x\n", "construction"),
    ('def f(x):\n    if __name__ == "__main__":\n        x = 1\n    return x\n', "main_guard"),
    ("def f(x):\n    n = x.numel()\n    if n > 1 << 20:\n        n = 0\n    return n\n", "threshold"),
    ("def f(x):\n    if x.stride(-1) != 1:\n        x = x.contiguous()\n    return x\n", "input"),
    ("def f(x):\n    if len(x.shape) == 3:\n        x = x.flatten(0, 1)\n    return x\n", "rank"),
    ("def f(x, bias):\n    if bias is not None:\n        x = x + bias\n    return x\n", "optional_argument"),
    ("def f(x, act):\n    if act == 'relu':\n        x = x.relu()\n    return x\n", "mode"),
    ("def f(x):\n    if x.requires_grad:\n        x = x.detach()\n    return x\n", "mode"),
    ("def f(x):\n    if x.numel() == 0:\n        return x\n    return x + 1\n", "empty_input"),
    ("def f(x):\n    if x.shape[-1] % 16 != 0:\n        x = x[..., :16]\n    return x\n", "input"),
])
def test_classification_by_what_the_condition_reads(source: str, kind: str) -> None:
    # the function ran (its first line) but took no branch side: both sides of line 2/3 are untaken
    first = 2
    sides, _t, _k = unreached("m.py", source, {(-1, first), (first, first + 1)} if "n = " in source
                              else {(-1, first)})
    assert sides and {s.kind for s in sides} == {kind}, [(s.condition, s.side, s.kind) for s in sides]


def test_a_jax_jit_function_is_host_code_a_triton_kernel_is_not() -> None:
    src = ("import jax\nimport triton\n\n\n@jax.jit\ndef f(x):\n    if x.shape[0] % 8:\n        raise ValueError('rows')\n"
           "    return x\n\n\n@triton.jit\ndef k(x):\n    if x > 1:\n        x = 2\n    return x\n")
    sides = unreached("m.py", src, {(-6, 7), (7, 9), (9, -6), (-13, 14), (14, 16), (16, -13)})[0]
    assert [(s.line, s.kind) for s in sides] == [(7, "invalid_input")]


def test_contract_fixed_tasks_report_dtype_and_layout_tests_as_outside_it() -> None:
    src = "def f(x):\n    if x.dtype == 'float16':\n        x = x.float()\n    return x\n"
    (side,) = unreached("m.py", src, {(-1, 2), (2, 4), (4, -1)}, contract_fixed=True)[0]
    assert (side.kind, side.side) == ("outside_contract", "true")
    (side,) = unreached("m.py", src, {(-1, 2), (2, 4), (4, -1)})[0]
    assert side.kind == "input"


LAUNCHER = '''import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


def launch(x, n):
    if n > 10:
        y = 1
    else:
        y = 2
    add_one[(1,)](x, N=4)
    if n > 100:
        y = 3
    else:
        y = 4
    return y
'''


def test_tracing_pauses_inside_a_launch_and_resumes_in_the_wrapper(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    path = tmp_path / "launcher.py"
    path.write_text(LAUNCHER)
    spec = importlib.util.spec_from_file_location("h16cov_launcher", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.zeros(4)
    payload = {"submission_spec": {"submission_path": str(path)},
               "instrument_options": {"host_coverage": {"submission_file": "launcher.py"}}}
    with host_coverage(payload) as seen:
        assert module.launch(x, 5) == 4
    arcs = {tuple(a) for a in seen["arcs"]["launcher.py"]}
    assert {(12, 15), (16, 17), (17, 20), (20, 21)} <= arcs  # the wrapper after the launch is still traced
    assert not any(7 <= b <= 8 for _a, b in arcs)  # the kernel body ran (x changed) but is not measured
    assert x.tolist() == [1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize(("source", "kind"), [
    # a memo the call path fills: whether it hits depends on earlier calls (integrity's probes)
    ("_CACHE = {}\ndef f(x):\n    key = x.data_ptr()\n    if key in _CACHE:\n        return _CACHE[key]\n"
     "    _CACHE[key] = x + 1\n    return _CACHE[key]\n", "kept_state"),
    ("class M:\n    def f(self, x):\n        if x.shape in self._memo:\n            return self._memo[x.shape]\n"
     "        return self._memo.setdefault(x.shape, x + 1)\n", "kept_state"),
    # a table of constants nobody writes into is an input test, not kept state
    ("_FAST = (1, 2)\ndef f(x):\n    n = x.dtype\n    if n in _FAST:\n        x = x + 1\n    return x\n", "input"),
])
def test_a_lookup_in_a_cache_the_call_path_fills_is_kept_state(source: str, kind: str) -> None:
    lines = source.splitlines()
    cond = next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith("if "))
    start = next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith("def "))
    ran = {(-1, start + 1)} | {(a, a + 1) for a in range(start + 1, cond)}
    sides, _t, _k = unreached("m.py", source, ran)
    assert sides and {s.kind for s in sides} == {kind}, [(s.condition, s.side, s.kind) for s in sides]


@pytest.mark.parametrize(("source", "kind"), [
    ("class M:\n    def f(self, x):\n        if self._last is x:\n            return self._out\n"
     "        self._last, self._out = x, x + 1\n        return self._out\n", "kept_state"),
    ("_calls = 0\ndef f(x):\n    global _calls\n    _calls += 1\n    if _calls > 300:\n        x = x * 0\n"
     "    return x\n", "kept_state"),
    ("def f(x):\n    y = x.contiguous()\n    if y.data_ptr() % 16 != 0:\n        y = y.clone()\n    return y\n",
     "alignment"),
])
def test_state_written_by_earlier_calls_and_alignment_are_info(source: str, kind: str) -> None:
    lines = source.splitlines()
    cond = next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith("if "))
    start = next(i for i, ln in enumerate(lines, 1) if ln.strip().startswith("def "))
    ran = {(-1, start + 1)} | {(a, a + 1) for a in range(start + 1, cond)}
    sides, _t, _k = unreached("m.py", source, ran)
    assert sides and {s.kind for s in sides} == {kind}, [(s.condition, s.side, s.kind) for s in sides]


def test_the_state_a_condition_may_read_is_what_calls_assign_and_any_container_written() -> None:
    """tools/engine/kept_state.py finds the writes; host branches keep containers written anywhere
    (at import, at construction, in a call) and attributes or ``global`` names a call assigns."""
    text = ('TABLE = {}\nTABLE[0] = 1\nclass M:\n    def __init__(self):\n        self.size = 4\n'
            '        self.seen = set()\n        self.seen.add(0)\n    def forward(self, x):\n'
            '        y = self.w.add(x)\n        self._last = x\n        return y\n')
    src = source_file("m.py", text)
    assert src is not None
    assert written_state(src) == {"TABLE", "self.seen", "self._last"}
