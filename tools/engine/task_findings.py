"""The reference checks' numbers (tools/engine/harness/task_requests.py) as task findings.

Each finding says what a wrong kernel could get away with and which of kreview's own checks covers
it; ``degenerate`` marks the ones that alone let a wrong kernel pass the task's check.
"""

from __future__ import annotations

from typing import Any

from reviewer.core.task import TaskFinding

FEW_DISTINCT = 16
# Rationale: a handful of distinct values among a thousand or more is a generator of integers or a
# fill, not a sample of the op's domain; a kernel wrong between those values passes.
MIN_SAMPLE_FOR_DISTINCT = 1024

# what kreview's own stress cases do about inputs that reach only part of the domain (tools/numerics/stress_cases.py)
NEGATIVES = ("partly: numerics injects -inf and -0, its only negative values (a copy for relu/abs/clamp fails "
             "there); no probe of kreview feeds finite negative values")
DISTINCT = "none: numerics scales and shifts the same values, which keeps their count"


def probe_findings(probe: dict[str, Any], atol: float, rtol: float) -> list[TaskFinding]:
    tol = f"atol={atol:g}, rtol={rtol:g}"
    probe = _without_output_buffers(probe)
    return [*_reference_findings(probe, tol), *_output_findings(probe),
            *_input_findings(probe, tol), *_param_findings(probe, tol)]


def _without_output_buffers(probe: dict[str, Any]) -> dict[str, Any]:
    """Rationale: an input the reference overwrites and whose prior values do not reach the output is an
    output buffer (GPU MODE's ``data = (a, b, out)``), not an input the task forgets to check."""
    insensitive = {p["path"] for p in probe.get("input_probes", []) if p.get("within_tol")}
    buffers = set(probe.get("mutated_inputs") or []) & insensitive
    if not buffers:
        return probe
    return {**probe, "mutated_inputs": [p for p in probe["mutated_inputs"] if p not in buffers],
            "input_probes": [p for p in probe["input_probes"] if p["path"] not in buffers],
            "inputs": [s for s in probe.get("inputs", []) if s["path"] not in buffers],
            "output_buffers": sorted(buffers)}


def _reference_findings(probe: dict[str, Any], tol: str) -> list[TaskFinding]:
    out = []
    if probe.get("mutated_inputs"):
        out.append(TaskFinding(kind="reference_mutates_inputs", degenerate=True,
                               detail=f"the reference writes into its inputs {probe['mutated_inputs']}: a harness that "
                                      "reuses them hands the kernel different values than the reference saw",
                               covered_by="kreview gives each side its own copy of the inputs; integrity_runtime "
                                          "watches what the submission writes"))
    again = probe.get("second_run") or {}
    if not again.get("same_bits", True):
        beyond = not again.get("within_tol", True)
        out.append(TaskFinding(kind="nondeterministic_reference", degenerate=beyond,
                               detail=f"two runs of the reference on the same inputs differ by up to "
                                      f"{again.get('max_abs_diff')} ({'beyond' if beyond else 'within'} {tol})",
                               covered_by="numerics' determinism probe (the submission's own)",
                               numbers=again))
    bad = [o for o in probe.get("outputs", []) if o.get("nonfinite")]
    if bad:
        out.append(TaskFinding(kind="nonfinite_reference", degenerate=True,
                               detail="the reference's output holds " + ", ".join(
                                   f"{o['nonfinite']} non-finite value(s) in output {o['path']}" for o in bad)
                               + " on its own nominal inputs: any kernel producing NaN there matches",
                               covered_by="correctness judges NaN positions strictly and by float64 where the "
                                          "reference is inexact", numbers={"outputs": bad}))
    return out


def _output_findings(probe: dict[str, Any]) -> list[TaskFinding]:
    out = []
    for o in probe.get("outputs", []):
        if o["numel"] > 1 and o["std"] == 0.0 and not o.get("nonfinite"):
            out.append(TaskFinding(kind="constant_output", degenerate=True,
                                   detail=f"the reference's output {o['path']} {o['shape']} is the constant "
                                          f"{o['min']:g}: "
                                          "a kernel that writes that constant passes, whatever it computes",
                                   covered_by="correctness compares outputs across seeds (constant_output)",
                                   numbers=o))
    return out


def _input_findings(probe: dict[str, Any], tol: str) -> list[TaskFinding]:
    out = []
    for p in probe.get("input_probes", []):
        if p.get("within_tol"):
            out.append(TaskFinding(kind="insensitive_input", degenerate=True,
                                   detail=f"the output stays within {tol} of itself when input {p['path']} gets noise "
                                          f"of its own spread (max change {p.get('max_abs_diff'):.3g}): a kernel that "
                                          "ignores that input passes", covered_by="none", numbers=p))
    for s in probe.get("inputs", []):
        out += _domain_findings(s)
    return out


def _domain_findings(s: dict[str, Any]) -> list[TaskFinding]:
    out = []
    if s["numel"] > 1 and s["min"] is not None and s["min"] >= 0 and (s["max"] or 0) > 0:
        out.append(TaskFinding(kind="nonnegative_input", detail=(
            f"input {s['path']} takes values in [{s['min']:.3g}, {s['max']:.3g}] only: a kernel wrong for negative "
            "values (relu/abs/clamp written as a copy) passes the task's check"), covered_by=NEGATIVES, numbers=s))
    if len(s["shape"]) >= 2 and 1 in s["shape"]:
        out.append(TaskFinding(kind="size1_dim", detail=(
            f"input {s['path']} has shape {s['shape']}: a reduction or broadcast over its size-1 dimension is "
            "trivial there"), covered_by="generality, where that dimension is a size constant it varies", numbers=s))
    if s["sampled"] >= MIN_SAMPLE_FOR_DISTINCT and s["distinct"] <= FEW_DISTINCT:
        out.append(TaskFinding(kind="few_distinct_values", detail=(
            f"input {s['path']} holds only {s['distinct']} distinct values among {s['sampled']} sampled"),
            covered_by=DISTINCT, numbers=s))
    return out


def _param_findings(probe: dict[str, Any], tol: str) -> list[TaskFinding]:
    out = []
    for p in probe.get("param_probes", []):
        if "error" in p:
            continue
        if p.get("within_tol"):
            out.append(TaskFinding(kind="insensitive_parameter", degenerate=True,
                                   detail=f"the output stays within {tol} of itself when parameter {p['path']} gets "
                                          f"noise of its own spread (max change {p.get('max_abs_diff'):.3g}): a kernel "
                                          "that ignores it passes", covered_by="none", numbers=p))
        if p.get("all_zero"):
            out.append(TaskFinding(kind="zero_parameter", detail=(
                f"parameter {p['path']} {p['shape']} is all zeros as initialised: a kernel that skips the term it "
                "feeds passes on these parameters"), covered_by="none", numbers=p))
    return out
