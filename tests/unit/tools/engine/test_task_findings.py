"""The reference probes' numbers become task findings: each trait found, sound numbers stay clean
(no false positives) and a degenerate trait is marked so (no false negatives)."""

from __future__ import annotations

from typing import Any

from reviewer.core.task import ImpostorResult, TaskAudit
from tools.engine.task_audit import impostor_findings
from tools.engine.task_findings import probe_findings


def _stats(path: str = "0", **kw: Any) -> dict[str, Any]:
    base = {"path": path, "shape": [16, 64], "dtype": "float32", "numel": 1024, "min": -3.0, "max": 3.0, "std": 1.0,
            "abs_max": 3.0, "nonfinite": 0, "distinct": 1024, "sampled": 1024}
    return {**base, **kw}


def _probe(**kw: Any) -> dict[str, Any]:
    base = {"inputs": [_stats()], "outputs": [_stats()], "mutated_inputs": [],
            "second_run": {"same_bits": True, "within_tol": True, "max_abs_diff": 0.0},
            "input_probes": [{"path": "0", "same_bits": False, "within_tol": False, "max_abs_diff": 2.0}],
            "param_probes": [], "not_probed": []}
    return {**base, **kw}


def _kinds(probe: dict[str, Any]) -> dict[str, bool]:
    return {f.kind: f.degenerate for f in probe_findings(probe, 1e-4, 1e-4)}


def test_sound_numbers_give_no_finding() -> None:
    assert _kinds(_probe()) == {}


def test_each_degenerate_trait_is_found_and_marked() -> None:
    assert _kinds(_probe(mutated_inputs=["0"])) == {"reference_mutates_inputs": True}
    assert _kinds(_probe(outputs=[_stats(nonfinite=3)])) == {"nonfinite_reference": True}
    assert _kinds(_probe(outputs=[_stats(std=0.0, min=0.0, max=0.0)])) == {"constant_output": True}
    assert _kinds(_probe(input_probes=[{"path": "0", "same_bits": False, "within_tol": True,
                                        "max_abs_diff": 1e-9}])) == {"insensitive_input": True}
    assert _kinds(_probe(param_probes=[{"path": "w", "shape": [4], "all_zero": False, "within_tol": True,
                                        "max_abs_diff": 0.0}])) == {"insensitive_parameter": True}


def test_nondeterminism_is_degenerate_only_beyond_the_tolerance() -> None:
    within = {"same_bits": False, "within_tol": True, "max_abs_diff": 1e-7}
    assert _kinds(_probe(second_run=within)) == {"nondeterministic_reference": False}
    assert _kinds(_probe(second_run={**within, "within_tol": False})) == {"nondeterministic_reference": True}


def test_partial_domain_traits_are_notes() -> None:
    assert _kinds(_probe(inputs=[_stats(min=0.0, max=1.0)])) == {"nonnegative_input": False}
    assert _kinds(_probe(inputs=[_stats(shape=[16, 1, 64])])) == {"size1_dim": False}
    assert _kinds(_probe(inputs=[_stats(distinct=4)])) == {"few_distinct_values": False}
    assert _kinds(_probe(param_probes=[{"path": "b", "shape": [4], "all_zero": True, "within_tol": False}])) == \
        {"zero_parameter": False}


def test_an_impostor_is_a_finding_when_any_check_accepts_it() -> None:
    def imp(name: str, task: bool, own: bool) -> ImpostorResult:
        return ImpostorResult(impostor=name, passes_task_check=task, passes_own_check=own, task_check="t", own_check="o")

    imps = [imp("zeros", True, False), imp("copy", True, True), imp("stale", False, False)]
    audit = TaskAudit(path="p", task_check="allclose", impostors=imps)
    found = {f.impostor: f for f in impostor_findings(audit)}
    assert set(found) == {"zeros", "copy"}
    assert found["zeros"].passes_task_check and not found["zeros"].passes_own_check
    assert "cannot rest on that check alone" in found["copy"].detail
    done = audit.model_copy(update={"findings": list(found.values())})
    assert [f.impostor for f in done.own_check_fooled()] == ["copy"]


def test_an_output_buffer_is_neither_mutation_nor_an_ignored_input() -> None:
    """GPU MODE hands the reference its output buffer among the inputs: written, never read."""
    buffer = {"path": "0.2", "same_bits": True, "within_tol": True, "max_abs_diff": 0.0}
    read = {"path": "0.0", "same_bits": False, "within_tol": False, "max_abs_diff": 1.0}
    assert _kinds(_probe(mutated_inputs=["0.2"], input_probes=[read, buffer])) == {}
    # written and read: an in-place reference; ignored and not written: an input the check misses
    assert _kinds(_probe(mutated_inputs=["0.0"], input_probes=[read, buffer])) == \
        {"reference_mutates_inputs": True, "insensitive_input": True}


def test_an_impostor_only_kreview_accepts_is_kreviews_gap_not_a_degenerate_task() -> None:
    imps = [ImpostorResult(impostor="constant", passes_task_check=False, passes_own_check=True, task_check="t",
                           own_check="o", own_basis="error_budget")]
    [found] = impostor_findings(TaskAudit(path="p", impostors=imps))
    assert not found.degenerate and found.passes_own_check and found.numbers["own_basis"] == "error_budget"
