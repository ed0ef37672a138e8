"""A kernel whose verdict differs between the compiled run on the GPU and the Triton interpreter on
the CPU gets an item that says so, with both results and the usual causes; agreeing runs get none."""

from __future__ import annotations

from tools.memcheck.devices import CAUSES, compare_verdicts


def test_agreeing_runs_say_nothing() -> None:
    assert compare_verdicts("NVIDIA H200", False, True, "", "nominal") is None
    assert compare_verdicts("NVIDIA H200", True, False, "3 of 64 elements", "nominal") is None


def test_a_race_only_the_gpu_shows_is_explained() -> None:
    got = compare_verdicts("NVIDIA H200", True, True, "", "nominal, seed 7")
    assert got is not None and got.gpu == "fails correctness" and got.interpreter == "matches the reference"
    assert "on nominal, seed 7" in got.summary and "NVIDIA H200" in got.summary and "the GPU run decides" in got.summary
    assert any("race" in c for c in got.causes) and got.causes == CAUSES


def test_an_interpreter_only_mismatch_is_explained_too() -> None:
    got = compare_verdicts("NVIDIA H200", False, False, "output 0: 12 of 4096 elements outside", "nominal")
    assert got is not None and "does not match the reference: output 0: 12 of 4096" in got.interpreter
