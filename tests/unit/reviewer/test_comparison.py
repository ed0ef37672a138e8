"""reviewer/comparison.py: differences in behaviour in the ranking, the table and the text."""

from __future__ import annotations

from reviewer.comparison import Column, RunComparison, _behaviour_reasons, _key, render
from tools.engine.differential import CaseCheck, PairReport, SideRun


def _col(name: str) -> Column:
    return Column(name=name, run_id="r", framework="triton", overall="accept", criteria={"correctness": "pass"},
                  correctness={"float64_error_ratio": 1.0})


def _report(closer: str | None, original: str | None = None) -> PairReport:
    chk = CaseCheck(case={"id": "x", "seed": 1, "params": {"n": 3}}, label="n=3", input_elements=3,
                    sides=[SideRun(name="a", status="ok", output_digest="aa", float64_max_err=0.0),
                           SideRun(name="b", status="ok", output_digest="bb", float64_max_err=1.0)],
                    disagree=True, kind="outputs", detail="output 0: 1 of 1 elements outside", closer_to_float64=closer,
                    judge=f"float64 judge: {closer} is closer" if closer else "")
    return PairReport(names=["a", "b"], original=original, cases_checked=4, cases_disagreeing=2, shrunk=True,
                      smallest=chk, summary="a and b disagree", rerun="kreview compare A B --case '{}' --seed 1")


def test_losing_a_float64_judged_disagreement_ranks_lower() -> None:
    reports = [_report("b")]
    assert _key(_col("a"), reports) > _key(_col("b"), reports)
    assert _key(_col("a"), [_report(None)]) < _key(_col("b"), [_report(None)])  # no judge: name decides


def test_reasons_name_the_port_and_the_judge() -> None:
    assert _behaviour_reasons("b", [_report("a", original="a")]) == [
        "diverges from its original a on 2 of 4 case(s) (float64 judges a closer)"]
    assert _behaviour_reasons("a", [_report("a", original="a")]) == [
        "disagrees with b on 2 of 4 case(s) (float64 judges it closer)"]


def test_render_shows_the_pair_row_the_smallest_case_and_its_rerun() -> None:
    cmp = RunComparison(columns=[_col("a"), _col("b")], ranking=[], same_reference=True, original="a",
                     behaviour=[_report("a", original="a")])
    md = render(cmp, "markdown")
    assert "| role | original (behaviour to preserve) | port |" in md
    assert "| behaviour a vs b | float64 max err 0 (closer) | float64 max err 1 |" in md
    assert "port review: a is the original" in md and "`kreview compare A B --case '{}' --seed 1`" in md
    assert "a aa, b bb" in render(cmp, "text")
    assert '"behaviour"' in render(cmp, "json")
