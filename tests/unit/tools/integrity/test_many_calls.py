"""The many-calls probe's plan and verdict (tools/integrity/many_calls.py) and the static scan of
state that survives a call integrity reports (tools/integrity/module_state.py)."""

from __future__ import annotations

from itertools import pairwise

import torch

import tools.integrity.many_calls as M
from tools.engine.kept_state import state_writes
from tools.engine.source import source_file
from tools.integrity.module_state import state_concerns


def test_schedule_is_fixed_and_every_reuse_follows_its_own_content() -> None:
    plan = M.schedule()
    assert len(plan) == M.MANY_CALLS == 320 and plan == M.schedule()
    assert plan[0] == (0, "fresh")
    for (prev, _), (content, how) in pairwise(plan):
        if how == "reuse":
            assert content == prev
    hows = {h for _, h in plan}
    assert hows == {"fresh", "reuse", "copy"} and {c for c, _ in plan} == {0, 1}


def _outputs(plan: list[tuple[int, str]], expected: list[torch.Tensor], wrong_from: int | None = None) -> list:
    out = []
    for k, (content, _) in enumerate(plan, start=1):
        y = expected[content].clone()
        if wrong_from is not None and k >= wrong_from:
            y[1, 2] += 1.0
        out.append([y])
    return out


def test_divergence_after_many_calls_fails_with_the_call_and_element() -> None:
    plan = M.schedule()
    expected = [torch.rand(3, 4), torch.rand(3, 4)]
    check = M.judge(_outputs(plan, expected, wrong_from=301), expected, plan, None, None, None, [7], "small")
    assert check.outcome == "fail" and check.defect == "stateful_output"
    div = check.result["divergence"]
    assert div["call"] == 301 and div["index"] == [1, 2]
    assert abs(div["actual"] - div["expected"] - 1.0) < 1e-6
    assert "call 301 of 320" in check.summary and check.lines == [7]


def test_all_calls_right_passes_and_a_wrong_first_call_is_left_to_correctness() -> None:
    plan = M.schedule()
    expected = [torch.rand(3, 4), torch.rand(3, 4)]
    ok = M.judge(_outputs(plan, expected), expected, plan, None, None, None, [], "small")
    assert ok.outcome == "pass" and "320 calls" in ok.summary
    wrong = M.judge(_outputs(plan, expected, wrong_from=1), expected, plan, None, None, None, [], "small")
    assert wrong.outcome == "info" and wrong.result["first_mismatch"]["call"] == 1


def test_a_replayed_output_on_new_contents_fails() -> None:
    plan = M.schedule()
    expected = [torch.rand(3, 4), torch.rand(3, 4)]
    outputs = _outputs(plan, expected)
    first_switch = next(k for k, (c, _) in enumerate(plan, start=1) if c == 1)
    outputs[first_switch - 1 + 8] = [expected[0].clone()]  # a later call on content 1 returns content 0's answer
    check = M.judge(outputs, expected, plan, None, None, None, [], "small")
    assert check.outcome == "fail" and check.result["divergence"]["call"] == first_switch + 8


def test_an_error_after_successful_calls_fails_but_a_first_call_error_does_not() -> None:
    plan = M.schedule()
    expected = [torch.rand(2, 2), torch.rand(2, 2)]
    outputs = _outputs(plan, expected)[:40]
    late = M.judge(outputs, expected, plan, {"call": 41, "type": "RuntimeError", "message": "boom"}, None, None,
                   [], "small")
    assert late.outcome == "fail" and "call 41 of 320 raised RuntimeError" in late.summary
    first = M.judge([], expected, plan, {"call": 1, "type": "RuntimeError", "message": "x"}, None, None, [], "s")
    assert first.outcome == "info"


def test_loop_units_count_programs_and_elements() -> None:
    assert M.loop_units(16, 4800) == 320 * (M.LOOP_CALL_UNITS + 2 * 16 + 4800 / 512)


SAMPLE = '''
import functools, torch
_CALLS = 0
CACHE = {}
STATE = object()
W = torch.ones(3)

@functools.lru_cache(maxsize=None)
def table(n):
    return torch.arange(n)

class ModelNew(torch.nn.Module):
    hits = 0
    def __init__(self):
        super().__init__()
        self.count = 0
    def forward(self, x):
        global _CALLS
        _CALLS += 1
        CACHE[x.shape] = x
        STATE.n = 3
        ModelNew.hits += 1
        self.count += 1
        self.n = self.n + 1
        y = self.bias.add(x)
        z = W.add(1)
        local = {}
        local[1] = 2
        out = torch.empty(3)
        out[0] = 1
        return x
'''


def test_state_writes_names_each_kind_and_skips_locals() -> None:
    src = source_file("s.py", SAMPLE)
    assert src is not None
    got = {(w.kind, w.name) for w in state_concerns(src)}
    assert got == {("lru_cache", "table"), ("global", "_CALLS"), ("container", "CACHE"),
                   ("module_attribute", "STATE"), ("class_attribute", "ModelNew.hits"),
                   ("instance", "self.count"), ("instance", "self.n")}


def test_state_in_init_and_in_kernels_is_not_reported() -> None:
    text = '''
import triton
_T = {}
@triton.jit
def k(x):
    _T[0] = 1
class M:
    def __init__(self):
        self.cache = {}
        self.cache[1] = 2
'''
    src = source_file("t.py", text)
    assert src is not None and state_concerns(src) == []


def test_plain_instance_assignment_module_level_code_and_used_results_are_not_concerns() -> None:
    """The engine counts them as writes (tools/engine/kept_state.py); integrity leaves them out: every
    model assigns ``self.x``, module-level code builds the module."""
    text = '''
TABLE = {}
TABLE[0] = 1
CONFIGS = {}
class M:
    def forward(self, x):
        self._last_input, self._last_output = x, x + 1
        self.mode = "fast"
        block = CONFIGS.setdefault(x.shape, 4)
        return x
'''
    src = source_file("u.py", text)
    assert src is not None
    assert state_concerns(src) == []
    assert {(w.kind, w.target) for w in state_writes(src)} == {
        ("container", "TABLE"), ("instance_assign", "self._last_input"), ("instance_assign", "self._last_output"),
        ("instance_assign", "self.mode"), ("container", "CONFIGS")}


def test_a_second_child_that_answers_otherwise_than_the_fresh_one_fails() -> None:
    """Issue 28, item 3: the probe's first part in a fresh child, the whole schedule again in a second child
    with a large pid; an answer there that differs where the fresh child's was right is stateful_output,
    from its first call on (a kernel keyed on the pid alone) or later (one keyed on the calls made)."""
    fresh_plan, plan = M.schedule(M.FRESH_CALLS), M.schedule()
    expected = [torch.rand(3, 4), torch.rand(3, 4)]
    fresh = (_outputs(fresh_plan, expected), fresh_plan, None)
    for wrong_from in (1, 51):
        check = M.judge(_outputs(plan, expected, wrong_from=wrong_from), expected, plan, None, None, None, [], "small",
                        fresh=fresh, pid=4321)
        assert check.outcome == "fail" and check.defect == "stateful_output", check.summary
        assert check.result["divergence"]["call"] == wrong_from and check.result["divergence"]["child"] == 1
        assert "second child (pid 4321" in check.summary
    assert "fresh child's answers on the same content were right" in M.judge(
        _outputs(plan, expected, wrong_from=1), expected, plan, None, None, None, [], "small", fresh=fresh,
        pid=4321).summary
    ok = M.judge(_outputs(plan, expected), expected, plan, None, None, None, [], "small", fresh=fresh, pid=4321)
    assert ok.outcome == "pass" and f"{M.FRESH_CALLS + 320} calls" in ok.summary
    assert [c["calls_run"] for c in ok.result["children"]] == [M.FRESH_CALLS, 320]
    # wrong in the fresh child's first call already: the correctness tool's to report, as before
    first_wrong = (_outputs(fresh_plan, expected, wrong_from=1), fresh_plan, None)
    assert M.judge(_outputs(plan, expected), expected, plan, None, None, None, [], "small", fresh=first_wrong,
                   pid=4321).outcome == "info"
    # a call that raises in the second child where the fresh child's calls succeeded
    raised = M.judge(_outputs(plan[:3], expected), expected, plan, {"call": 4, "type": "RuntimeError",
                     "message": "x"}, None, None, [], "small", fresh=fresh, pid=4321)
    assert raised.outcome == "fail" and raised.defect == "stateful_output"
