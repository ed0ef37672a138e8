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


# Rationale: the first part of the probe, in a fresh child, covers the pattern once (both contents, every
# way of calling); the rest of the probe runs in a second child that raised its pid and has been calling
# since (issue 28, item 3), so an answer that depends on the process, not only on the calls, differs there.
FRESH_CALLS = len(_PATTERN) + 1


def judge(outputs: list[Any], expected: list[Any], plan: list[tuple[int, str]], error: dict[str, Any] | None,
          atol: float | None, rtol: float | None, state_lines: list[int], label: str, *,
          fresh: tuple[list[Any], list[tuple[int, str]], dict[str, Any] | None] | None = None,
          pid: int | None = None) -> Check:
    """The verdict on the probe's outputs (``outputs[k-1]`` is call k's; ``expected[c]`` the
    reference's for content c). ``fresh``: the outputs, plan and error of the probe's first part, in a
    fresh child, before ``outputs`` (then the calls of a second child whose serving process has pid
    ``pid``): an answer there that differs where the fresh child's on the same content was right is a
    finding too, the answer depending on the process."""
    name = "many_calls"
    first_ok: dict[int, bool] = {}
    parts = [] if fresh is None else [(fresh[0], fresh[1], fresh[2], None)]
    parts.append((outputs, plan, error, pid))
    second = fresh is not None
    result: dict[str, Any] = {"calls_planned": sum(len(p[1]) for p in parts),
                              "calls_run": sum(len(p[0]) for p in parts), "case": label,
                              "schedule_pattern": [list(p) for p in _PATTERN], "state_lines": state_lines}
    if second:
        result["children"] = [{"child": "fresh" if i == 0 else "second", "pid": p[3], "calls_planned": len(p[1]),
                               "calls_run": len(p[0])} for i, p in enumerate(parts)]
    for i, (outs, sched, err, ppid) in enumerate(parts):
        where = "" if not second else (" in a fresh child" if i == 0 else
                                       f" in a second child (pid {ppid}, fresh before the probe)")
        for k, out in enumerate(outs, start=1):
            content, how = sched[k - 1]
            diff = first_difference(out, expected[content], atol, rtol)
            if content not in first_ok:
                first_ok[content] = diff is None
                if diff is not None:
                    result["first_mismatch"] = {"call": k, "content": content, "child": i, **diff}
                    return Check(name, "info", f"call {k}{where} (the first on content {content}) already differs "
                                 "from the reference; the correctness tool reports the mismatch", _WHAT, result=result)
                continue
            if diff is not None:
                result["divergence"] = {"call": k, "content": content, "how": how, "child": i, **diff}
                at = (f" at output {diff['output']} index {diff.get('index')}: expected {diff['expected']:.6g}, got "
                      f"{diff['actual']:.6g}" if "index" in diff else f": {str(diff.get('reason', ''))[:200]}")
                first_here = i > 0 and not any(c == content for c, _ in sched[:k - 1])
                before = ("although the fresh child's answers on the same content were right" if first_here
                          else "although earlier calls on the same content were right")
                return Check(name, "fail", f"call {k} of {len(sched)}{where} ({_how_text(how, content)}) returned a "
                             f"wrong answer {before}: {diff['mismatches']} of {diff['numel']} elements differ{at}; "
                             f"the answer depends on the call history{' or the process' if second else ''} "
                             f"(state kept between calls{_lines_text(state_lines)})", _WHAT,
                             defect="stateful_output", result=result, lines=state_lines)
        if err is not None and (int(err.get("call", 0)) > 1 or (i > 0 and first_ok)):
            result["error"] = {"child": i, **{k: err.get(k) for k in ("call", "type", "message")}}
            return Check(name, "fail", f"call {err['call']} of {len(sched)}{where} raised {err.get('type')}: "
                         f"{str(err.get('message', ''))[:200]} after {sum(len(p[0]) for p in parts[:i + 1])} calls "
                         f"that succeeded on the same inputs; the call history{' or the process' if second else ''} "
                         f"changes what a call does{_lines_text(state_lines)}", _WHAT,
                         defect="stateful_output", result=result, lines=state_lines)
        if err is not None:
            result["error"] = {"child": i, **{k: err.get(k) for k in ("call", "type", "message")}}
            return Check(name, "info", f"the first call raised {err.get('type')}; the builds and correctness "
                         "tools report it", _WHAT, result=result)
    note = (f"; the state written at line(s) {', '.join(map(str, state_lines[:6]))} changed no answer"
            if state_lines else "")
    run = result["calls_run"]
    children = (f" ({len(fresh[0])} in a fresh child, {len(outputs)} in a second child with pid {pid})"
                if second else "")
    return Check(name, "pass", f"{run} calls on {label}{children}, two contents alternating (same tensors, "
                 f"contents copied in, new tensors): every output matched the reference{note}", _WHAT, result=result)


def _how_text(how: str, content: int) -> str:
    return {"reuse": f"the same input tensors again, content {content}",
            "copy": f"content {content} copied into the same input tensors",
            "fresh": f"new tensors holding content {content}"}.get(how, how)


def _lines_text(lines: list[int]) -> str:
    return f", written at line(s) {', '.join(map(str, lines[:6]))}" if lines else ""
