"""``kreview fix --apply`` with several verified fixes (reviewer/fix/combine.py): the ones whose lines do not
overlap are applied together after one rerun of the combination; a combination that does not verify falls
back to the first fix, and an overlapping fix is left out, each said. No sandbox: scripted reruns."""

from __future__ import annotations

from pathlib import Path

import pytest

import reviewer.fix.verify as verify
from reviewer.core.config import ReviewConfig
from reviewer.drafting.render import render_markdown
from reviewer.fix import fix_review
from reviewer.fix.candidates import Candidate
from reviewer.fix.combine import combine
from reviewer.fix.source import insert_at
from reviewer.fix.verify import Verification
from reviewer.runs import create_run_dir, write_review
from tests.cli_runner import invoke
from tests.kernelfiles import KERNELS
from tests.unit.reviewer.fix.stubs import ev, review

KERNEL = KERNELS / "softmax/bad_contiguity.py"
CAST, CONTIG = "out.to(y_ptr.dtype.element_ty)", "x = x.contiguous()"
# Two failed criteria, two defect classes on different lines: the stored value's dtype (correctness) and a
# strided input read as contiguous (generality).
TWO = [ev("builds-1", "builds", "builds", "pass"),
       ev("correctness-1", "correctness", "correctness", "fail", summary="float16 output: round to the dtype"),
       ev("generality-1", "generality", "generality", "fail", summary="transposed input: mismatch at stride 1")]


def _rerun(together_ok: bool = True):
    """A rerun whose correctness item passes once the cast is in, the generality one once the input is made
    contiguous (with both in, correctness fails unless ``together_ok``)."""
    calls: list[str] = []

    def fake(rev, root, config, file, patched, tools):
        calls.append(patched)
        cast, contig = CAST in patched, CONTIG in patched
        ok = {"builds-1": True, "correctness-1": cast and (together_ok or not contig), "generality-1": contig}
        return review([e.model_copy(update={"outcome": "pass" if ok[e.id] else "fail"}) for e in TWO]), ""
    fake.calls = calls  # type: ignore[attr-defined]
    return fake


def _fixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, together_ok: bool = True):
    (tmp_path / "submission.py").write_text(KERNEL.read_text())
    monkeypatch.setattr(verify, "rerun", fake := _rerun(together_ok))
    r = review(TWO, root=str(tmp_path))
    report = fix_review(r, tmp_path, ReviewConfig())
    assert [(f.kind, f.criterion) for f in report.fixes] == [("store_cast", "correctness"),
                                                             ("contiguous", "generality")], report
    return r, report, fake


def test_non_overlapping_fixes_are_applied_together_after_one_rerun(tmp_path, monkeypatch) -> None:
    r, report, fake = _fixes(tmp_path, monkeypatch)
    before = len(fake.calls)
    got = combine(r, tmp_path, ReviewConfig(), report.fixes, KERNEL.read_text())
    assert [f.id for f in got.applied] == ["fix-1", "fix-2"] and got.left_out == [] and got.reverified
    assert len(fake.calls) == before + 1 and fake.calls[-1] == got.patched  # one rerun of the combination
    assert CAST in got.patched and CONTIG in got.patched
    added = [x for x in got.diff.splitlines() if x.startswith("+") and not x.startswith("+++")]
    assert len(added) == 2 and got.diff.startswith("--- a/submission.py")


def test_a_combination_that_fails_applies_only_the_first_and_says_why(tmp_path, monkeypatch) -> None:
    r, report, _ = _fixes(tmp_path, monkeypatch, together_ok=False)
    got = combine(r, tmp_path, ReviewConfig(), report.fixes, KERNEL.read_text())
    assert [f.id for f in got.applied] == ["fix-1"] and not got.reverified
    assert CAST in got.patched and CONTIG not in got.patched and got.diff == report.fixes[0].diff
    ((left, why),) = got.left_out
    assert left.id == "fix-2" and why == got.together
    assert why.startswith("the fixes together did not verify: ") and "correctness-1" in why


def test_an_overlapping_fix_is_left_out_without_a_rerun(tmp_path, monkeypatch) -> None:
    r, report, _ = _fixes(tmp_path, monkeypatch)
    first = report.fixes[0]
    line = first.changes[0].start_line
    same_line = report.fixes[1].model_copy(update={"edits": [insert_at(line, 4, "pass; ")],
                                                   "changes": [first.changes[0]]})

    def never(c: Candidate) -> Verification:
        raise AssertionError("nothing to rerun: one fix is applied")

    got = combine(r, tmp_path, ReviewConfig(), [first, same_line], KERNEL.read_text(), verifier=never)
    assert [f.id for f in got.applied] == ["fix-1"] and got.patched.count(CAST) == 1
    assert got.left_out == [(same_line, f"overlaps an earlier fix on line(s) {line}")]


def test_apply_on_the_command_line_writes_every_fix_that_combines(tmp_path, monkeypatch) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "submission.py").write_text(KERNEL.read_text())
    r = review(TWO, root=str(sub.resolve()))
    runs = tmp_path / "runs"
    write_review(create_run_dir(runs, r.run_id), r, render_markdown(r))
    for together_ok, applied in ((True, "applied fix-1 (store_cast), fix-2 (contiguous)"),
                                 (False, "applied only the first fix, fix-1 (store_cast)")):
        (sub / "submission.py").write_text(KERNEL.read_text())
        monkeypatch.setattr(verify, "rerun", _rerun(together_ok))
        res = invoke("fix", str(sub), "--run", r.run_id, "--runs-dir", str(runs), "--apply")
        assert res.exit_code == 0, res.output
        assert applied in " ".join(res.output.split())
        text = (sub / "submission.py").read_text()
        assert CAST in text and (CONTIG in text) == together_ok
        assert (sub / "submission.py.kreview-orig").read_text() == KERNEL.read_text()
    assert "not applied: fix-2 (contiguous, generality): the fixes together did not verify" in " ".join(
        res.output.split())
