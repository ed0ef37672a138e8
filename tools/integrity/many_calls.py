"""The many-calls probe: does an answer depend on how often, or with what, the submission was called before?

A softmax that goes wrong after its 300th call (a module-level counter) or that replays an output
cached on the input's shape or address passes every probe that calls it a few times. This probe
binds the submission once and calls it ``MANY_CALLS`` times in one request on a small input,
switching between two input contents in a fixed pattern (``schedule``): the same tensors again,
the other content copied into the same tensors (same addresses, new values), and new tensors.
Every output is compared with the reference's output for its content. The pattern and the number
of calls are constants: the same on every machine and for every seed.

Pure functions: the schedule, the per-call units of the plan, and the verdict from the outputs.
"""

from __future__ import annotations

from typing import Any

import torch

from tools.engine.compare import compare_outputs
from tools.engine.compare.compare import flat_index
from tools.engine.harness.tensors import flatten
from tools.engine.work_units import ELEMENTS_PER_UNIT, PROGRAM_UNITS
from tools.integrity.checks import Check

# Rationale: the held-out defect switched after 300 calls; a few hundred calls on a small input
# cost seconds under the interpreter (320 calls of a 4-program softmax: 1.2-2 s on 2 cores).
MANY_CALLS = 320
# Rationale: a call inside the loop pays no reference run, transfer or IPC, only Python and the
# launch: a few units, not plan.CALL_UNITS.
LOOP_CALL_UNITS = 5.0
# Rationale: ~20 s of interpreted calls at --budget 1 by the plan's count (16 one-row programs a
# call, 320 calls: ~12,000 units, measured 3-6 s on 2 cores).
MANY_CALLS_UNITS = 20000.0
# Rationale: the probe looks for state, not for size effects: the input is halved (no knob below
# 16) until one call counts at most this many units, the many calls staying cheap.
SMALL_CALL_UNITS = 40.0
# (content, how) repeated: reuse = the same input objects, copy = the other content written into
# them (same data_ptr, same id, new values), fresh = new tensors.
# Each ``reuse`` follows a call on the same content, and the pattern ends on content 0.
_PATTERN = ((0, "reuse"), (0, "reuse"), (1, "copy"), (1, "reuse"), (0, "copy"), (1, "fresh"), (1, "reuse"),
            (0, "fresh"))

_WHAT = "the submission bound once and called many times on a small input, two contents alternating " \
        "(same tensors, contents copied into them, new tensors); every output vs the reference"


def schedule(n: int = MANY_CALLS) -> list[tuple[int, str]]:
    """The calls, in order: call 1 binds on content 0 (``fresh``), then the fixed pattern."""
    return [(0, "fresh")] + [_PATTERN[(k - 1) % len(_PATTERN)] for k in range(1, n)]


def loop_units(programs: float, elements: int, calls: int = MANY_CALLS) -> float:
    """Work units (tools/engine/work_units.py) of ``calls`` in-loop calls of one configuration."""
    return calls * (LOOP_CALL_UNITS + PROGRAM_UNITS * programs + elements / ELEMENTS_PER_UNIT)


def first_difference(actual: Any, expected: Any, atol: float | None, rtol: float | None) -> dict[str, Any] | None:
    """The first output element outside the tolerance: output path, index, expected and actual value."""
    cmp = compare_outputs(actual, expected, atol=atol, rtol=rtol)
    if cmp.ok:
        return None
    act = dict(flatten(actual if isinstance(actual, (list, tuple)) else [actual]))
    for o in cmp.outputs:
        if o.ok:
            continue
        a, e = act.get(o.path), dict(flatten(expected if isinstance(expected, (list, tuple)) else [expected])).get(o.path)
        out: dict[str, Any] = {"output": o.path, "mismatches": o.mismatches, "numel": o.numel,
                               "max_abs_err": o.max_abs_err}
        if (isinstance(a, torch.Tensor) and isinstance(e, torch.Tensor) and a.shape == e.shape
                and o.mismatch_flat_range):
            flat = int(o.mismatch_flat_range[0])
            index = flat_index(flat, tuple(a.shape))
            out.update(index=index, expected=float(e.reshape(-1)[flat].double()),
                       actual=float(a.reshape(-1)[flat].double()))
        else:
            out["reason"] = o.reason or cmp.reason
        return out
    return {"reason": cmp.reason}


def judge(outputs: list[Any], expected: list[Any], plan: list[tuple[int, str]], error: dict[str, Any] | None,
          atol: float | None, rtol: float | None, state_lines: list[int], label: str) -> Check:
    """The verdict on the probe's outputs (``outputs[k-1]`` is call k's; ``expected[c]`` the
    reference's for content c)."""
    name = "many_calls"
    first_ok: dict[int, bool] = {}
    result: dict[str, Any] = {"calls_planned": len(plan), "calls_run": len(outputs), "case": label,
                              "schedule_pattern": [list(p) for p in _PATTERN], "state_lines": state_lines}
    for k, out in enumerate(outputs, start=1):
        content, how = plan[k - 1]
        diff = first_difference(out, expected[content], atol, rtol)
        if content not in first_ok:
            first_ok[content] = diff is None
            if diff is not None:
                result["first_mismatch"] = {"call": k, "content": content, **diff}
                return Check(name, "info", f"call {k} (the first on content {content}) already differs from the "
                             "reference; the correctness tool reports the mismatch", _WHAT, result=result)
            continue
        if diff is not None:
            result["divergence"] = {"call": k, "content": content, "how": how, **diff}
            where = (f" at output {diff['output']} index {diff.get('index')}: expected {diff['expected']:.6g}, got "
                     f"{diff['actual']:.6g}" if "index" in diff else f": {str(diff.get('reason', ''))[:200]}")
            return Check(name, "fail", f"call {k} of {len(plan)} ({_how_text(how, content)}) returned a wrong answer "
                         f"although earlier calls on the same content were right: {diff['mismatches']} of "
                         f"{diff['numel']} elements differ{where}; the answer depends on the call history "
                         f"(state kept between calls{_lines_text(state_lines)})", _WHAT, defect="stateful_output",
                         result=result, lines=state_lines)
    if error is not None and int(error.get("call", 0)) > 1:
        result["error"] = {k: error.get(k) for k in ("call", "type", "message")}
        return Check(name, "fail", f"call {error['call']} of {len(plan)} raised {error.get('type')}: "
                     f"{str(error.get('message', ''))[:200]} after {len(outputs)} calls that succeeded on the same "
                     f"inputs; the call history changes what a call does{_lines_text(state_lines)}", _WHAT,
                     defect="stateful_output", result=result, lines=state_lines)
    if error is not None:
        result["error"] = {k: error.get(k) for k in ("call", "type", "message")}
        return Check(name, "info", f"the first call raised {error.get('type')}; the builds and correctness "
                     "tools report it", _WHAT, result=result)
    note = (f"; the state written at line(s) {', '.join(map(str, state_lines[:6]))} changed no answer"
            if state_lines else "")
    return Check(name, "pass", f"{len(outputs)} calls on {label}, two contents alternating (same tensors, "
                 f"contents copied in, new tensors): every output matched the reference{note}", _WHAT, result=result)


def _how_text(how: str, content: int) -> str:
    return {"reuse": f"the same input tensors again, content {content}",
            "copy": f"content {content} copied into the same input tensors",
            "fresh": f"new tensors holding content {content}"}.get(how, how)


def _lines_text(lines: list[int]) -> str:
    return f", written at line(s) {', '.join(map(str, lines[:6]))}" if lines else ""
