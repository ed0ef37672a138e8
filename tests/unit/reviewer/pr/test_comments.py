"""Mapping evidence and findings to changed lines, ranking, fingerprints; old/new comparison rules."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.models import CriterionResult, Evidence, Finding, Review, SourceSpan, SubmissionInfo
from reviewer.pr.comments import fingerprints_in, plan_comments, rank
from reviewer.pr.before_after import compare_criteria, compare_metrics
from reviewer.pr.models import FileChange, LineRange, ReviewTarget
from reviewer.rubric import load_rubric

SRC = "\n".join(f"line {i}" for i in range(1, 21)) + "\n"
TARGET = ReviewTarget(dir="k/relu", name="relu", reasons=["k/relu/submission.py modified"], in_base=True, in_head=True)


def _span(a: int, b: int | None = None) -> SourceSpan:
    b = b or a
    return SourceSpan(file="submission.py", start_line=a, end_line=b,
                      quote="\n".join(f"line {i}" for i in range(a, b + 1)))


def _review(evidence=(), findings=(), criteria=None) -> Review:
    crits = criteria or [CriterionResult(id="correctness", title="Correctness", verdict="fail", summary=""),
                         CriterionResult(id="resources", title="Resources", verdict="fail", summary="",
                                         required=False)]
    return Review(run_id="20260101-000000-abcdef", status="awaiting_signoff", overall="reject", criteria=crits,
                  evidence=list(evidence), findings=list(findings), seed=1, created_at="2026-01-01T00:00:00+00:00",
                  submission=SubmissionInfo(root="/x", format="kernelbench", framework="triton",
                                            reference_file="reference.py", submission_file="submission.py", name="relu"))


TREE = Path("/tmp/kreview-diff-test/head")


def _ev(i: int, outcome: str, crit: str, spans, defect: str = "mismatch", **kw) -> Evidence:
    return Evidence(id=f"t-{i}", tool="t", criteria=[crit], outcome=outcome, summary=f"summary {i}", defect=defect,
                    spans=spans, rerun=f"kreview rerun {TREE}/k/relu --tool t --case {i}", **kw)


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "k" / "relu").mkdir(parents=True)
    (tmp_path / "k" / "relu" / "submission.py").write_text(SRC)
    return tmp_path


CHANGE = [FileChange(path="k/relu/submission.py", status="modified",
                     added=[LineRange(start=5, end=8), LineRange(start=15, end=15)])]


def test_only_evidence_backed_items_on_changed_lines_go_inline(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    review = _review(
        evidence=[_ev(1, "fail", "correctness", [_span(7)]),
                  _ev(2, "fail", "correctness", [_span(7)]),             # same defect, same line: merged
                  _ev(3, "fail", "resources", [_span(3, 6)], defect="spill"),  # optional criterion, lines 5-6
                  _ev(4, "fail", "correctness", [_span(12)], defect="oob"),    # unchanged line: summary
                  _ev(5, "pass", "correctness", [_span(15)])],                 # passes are not comments
        findings=[Finding(id="f-1", category="race", severity="error", message="racy store",
                          spans=[_span(15)], confirmed_by=["t-1"]),
                  Finding(id="f-2", origin="llm", category="style", message="odd name", spans=[_span(8)])])
    planned, notes = plan_comments(review, TARGET, CHANGE, tree)
    ranked = rank(planned)
    assert [(c.sources, c.path, c.line, c.start_line, c.rank) for c in ranked] == [
        (["t-1", "t-2"], "k/relu/submission.py", 7, None, 0),
        (["f-1"], "k/relu/submission.py", 15, None, 1),
        (["t-3"], "k/relu/submission.py", 6, 5, 2)]
    body = ranked[0].body
    assert "evidence `t-1`, `t-2`" in body and "- `t-2` (fail): summary 2" in body
    assert fingerprints_in(ranked[0].body) == {ranked[0].fingerprint}
    assert [(n.sources, n.where) for n in notes] == [(["t-4"], "k/relu/submission.py:12"),
                                                     (["f-2"], "k/relu/submission.py:8")]
    assert "not confirmed by evidence" in notes[1].text


def test_rerun_commands_point_into_the_checkout_not_the_temporary_tree(tmp_path: Path) -> None:
    tree = tmp_path / "head"
    _tree(tree)
    e = Evidence(id="t-1", tool="t", criteria=["correctness"], outcome="fail", summary="s", defect="mismatch",
                 spans=[_span(7)], rerun=f"kreview rerun {tree}/k/relu --tool t --case 1")
    [c], _ = plan_comments(_review([e]), TARGET, CHANGE, tree)
    assert "`kreview rerun k/relu --tool t --case 1`" in c.body


def test_fingerprint_survives_moved_lines_and_new_ids(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    [a], _ = plan_comments(_review([_ev(1, "fail", "correctness", [_span(7)])]), TARGET, CHANGE, tree)
    moved = SRC.replace("line 1\n", "line 0\nline 1\n", 1)  # everything shifts down by one
    (tree / "k" / "relu" / "submission.py").write_text(moved)
    span = SourceSpan(file="submission.py", start_line=8, end_line=8, quote="line 7")
    [b], _ = plan_comments(_review([_ev(9, "fail", "correctness", [span])]), TARGET, CHANGE, tree)
    assert (a.line, b.line) == (7, 8) and a.fingerprint == b.fingerprint


def _r(verdicts: dict[str, str], evidence=()) -> Review:
    crits = [CriterionResult(id=k, title=k, verdict=v, summary="") for k, v in verdicts.items()]
    return _review(evidence=evidence, criteria=crits)


def test_criteria_trends() -> None:
    old = _r({"builds": "pass", "correctness": "fail", "numerics": "pass", "integrity": "unverified",
              "gone": "pass"})
    new = _r({"builds": "pass", "correctness": "pass", "numerics": "unverified", "integrity": "not_applicable",
              "fresh": "fail"})
    got = {d.id: d.trend for d in compare_criteria(old, new)}
    assert got == {"builds": "unchanged", "correctness": "improvement", "numerics": "regression",
                   "integrity": "removed", "fresh": "new", "gone": "removed"}


def test_metrics_compare_the_same_check_on_the_same_inputs() -> None:
    def ev(i, regs, outcome="info", case="a"):
        return Evidence(id=f"r-{i}", tool="ptxas", criteria=["resources"], outcome=outcome, summary="s",
                        check="registers", inputs={"case": case}, result={"registers": regs, "spills": 0,
                                                                          "ok": True, "arch": "sm_90"})
    old = _r({"resources": "pass"}, [ev(1, 40), ev(2, 50, case="b")])
    new = _r({"resources": "pass"}, [ev(1, 64), ev(2, 50, outcome="fail", case="b")])
    got = [(m.key, m.old, m.new, m.ratio) for m in compare_metrics(old, new, load_rubric().metric_criteria())]
    assert got == [("registers", 40.0, 64.0, 1.6), ("spills", 0.0, 0.0, None)]
