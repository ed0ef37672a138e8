"""The model fixer without a sandbox (reviewer/fix/llm.py, guard.py): a scripted model's patch goes through the
same rerun comparison as a rule's (scripted reruns here), is offered with its origin, dropped when the rerun
fails, refused before any rerun when it is malformed, too large or keyed on the failing cases, and a model that
answers nothing usable leaves a note and the review's verdicts as they were."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

import reviewer.fix.verify as verify
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import LLMTimeout
from reviewer.fix import fix_review
from reviewer.fix.guard import MAX_LINES_CHANGED, check_patch, line_edits
from reviewer.fix.source import apply
from reviewer.formats.sarif import to_sarif
from reviewer.formats.text import render_text
from reviewer.llm import ScriptedModel
from tests.kernelfiles import KERNELS
from tests.unit.reviewer.fix.stubs import ev, review

KERNEL = KERNELS / "elementwise/bad_tail_grid_floor.py"
SRC = KERNEL.read_text()
LINES = SRC.splitlines()
IF = LINES.index("        if n >= 256:") + 1
LAUNCH = IF + 1
# the tail is never launched: the size search fails at n=1000 (not a multiple of 256); no rule knows the class
FAILING = [ev("builds-1", "builds", "builds", "pass"),
           ev("correctness-1", "correctness", "correctness", "pass", case="nominal"),
           ev("generality-1", "generality", "generality", "fail", check="generality search over sizes",
              summary="n=1000: 232 elements differ (mismatch)", case="sizes")]
FAILING[2].inputs["case"]["params"] = {"n": 1000}
GOOD = {"edits": [{"start_line": IF, "end_line": LAUNCH, "why": "cover the tail",
                   "replacement": "        if n > 0:\n            affine_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)"}],
        "summary": "launch cdiv(n, 256) programs"}
WRONG = {"edits": [{"start_line": LAUNCH, "end_line": LAUNCH,
                    "replacement": "            affine_kernel[(max(n // 256, 1),)](x, y, n, BLOCK=256)"}],
         "summary": "at least one program"}


@dataclass
class Sub:
    root: Path
    calls: list[str]
    """The patched texts the scripted rerun was given."""


@pytest.fixture
def sub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sub:
    (tmp_path / "submission.py").write_text(SRC)
    (tmp_path / "reference.py").write_text((KERNEL.parent / "reference.py").read_text())
    calls: list[str] = []

    def fake(rev, root, config, file, patched, tools):
        calls.append(patched)
        ok = "triton.cdiv(n, 256)" in patched
        return review([e.model_copy(update={"outcome": "pass" if ok or e.outcome == "pass" else "fail"})
                       for e in FAILING]), ""

    monkeypatch.setattr(verify, "rerun", fake)
    return Sub(tmp_path, calls)


def _fix(sub: Sub, *script):
    model = ScriptedModel(script, name="scripted")
    r = review(FAILING, root=str(sub.root))
    return r, fix_review(r, sub.root, ReviewConfig(), model=model), model


def test_a_verified_model_patch_is_offered_with_its_origin(sub: Sub) -> None:
    r, report, model = _fix(sub, GOOD)
    (fix,) = report.fixes
    assert (fix.kind, fix.criterion, fix.origin) == ("llm_patch", "generality", "llm:scripted")
    assert "+            affine_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)" in fix.diff
    assert ("generality-1", "fail", "pass") in {(x.evidence, x.before, x.after) for x in fix.reruns}
    assert sub.calls == [apply(SRC, fix.edits)]
    assert (sub.root / "submission.py").read_text() == SRC
    # one question, for the one failed criterion, showing the numbered source and the failing case
    (req,) = model.requests
    prompt = req.messages[-1]["content"]
    assert f"{LAUNCH} |             affine_kernel[(n // 256,)]" in prompt and "generality-1 [fail]" in prompt
    assert '"n": 1000' in prompt and req.response_format["json_schema"]["name"] == "FixerOut"
    # the origin in every output where fixes show
    r = r.model_copy(update={"fixes": report})
    assert "verified fix fix-1 (llm_patch) [origin: llm:scripted]" in render_text(r)
    res = next(x for x in to_sarif(r)["runs"][0]["results"] if x["ruleId"] == "criterion/generality")
    assert res["fixes"][0]["properties"] == {"origin": "llm:scripted"}
    assert "origin llm:scripted" in res["fixes"][0]["description"]["text"]


def test_a_model_patch_whose_rerun_fails_is_dropped_with_the_reason(sub: Sub) -> None:
    _, report, _ = _fix(sub, WRONG)
    assert report.fixes == []
    (d,) = report.dropped
    assert (d.kind, d.criterion, d.origin) == ("llm_patch", "generality", "llm:scripted")
    assert "generality-1 (sizes) still fail" in d.why
    assert "the model's patch was dropped too" in report.note


@pytest.mark.parametrize("script, note", [
    (["not json", "still not json"], "fixer (generality): the model's answer was unusable twice"),
    ([LLMTimeout("no answer in 60 s")], "fixer (generality): no answer"),
    ([{"edits": []}], "fixer (generality): the model proposed no patch"),
])
def test_a_model_without_a_usable_patch_leaves_a_note_and_the_verdicts(sub: Sub, script, note) -> None:
    r, report, _ = _fix(sub, *script)
    assert report.fixes == [] and report.dropped == []
    assert any(n.startswith(note) for n in report.notes), report.notes
    assert sub.calls == []
    assert [c.verdict for c in r.criteria] == [c.verdict for c in review(FAILING).criteria]
    shown = render_text(r.model_copy(update={"fixes": report}))
    assert "model fixer: " + note in shown


def test_a_patch_keyed_on_the_failing_case_is_refused_before_any_rerun(sub: Sub) -> None:
    keyed = {"edits": [{"start_line": LAUNCH, "end_line": LAUNCH, "replacement":
                        "            affine_kernel[(n // 256 + (1 if n == 1000 else 0),)](x, y, n, BLOCK=256)"}]}
    _, report, _ = _fix(sub, keyed)
    (d,) = report.dropped
    assert d.why.startswith("refused before any rerun: it adds a branch on 1000, a value of the failing cases")
    assert sub.calls == []


def test_a_criterion_a_rule_fixed_is_not_put_to_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "submission.py").write_text((KERNELS / "softmax/bad_no_max_subtraction.py").read_text())
    items = [ev("numerics-2", "numerics", "numerics", "fail", defect="large_magnitude", summary="exp overflow")]
    monkeypatch.setattr(verify, "rerun", lambda rev, *a: (review([items[0].model_copy(update={"outcome": "pass"})]), ""))
    model = ScriptedModel([], name="scripted")
    report = fix_review(review(items, root=str(tmp_path)), tmp_path, ReviewConfig(), model=model)
    assert [(f.kind, f.origin) for f in report.fixes] == [("max_subtraction", "rule")]
    assert model.requests == [] and report.notes == []


@pytest.mark.parametrize("edits, why", [
    ([(0, 1, "x")], "names lines 0-1, not lines of the file"),
    ([(LAUNCH, LAUNCH + 1000, "x")], f"names lines {LAUNCH}-{LAUNCH + 1000}, not lines of the file"),
    ([(5, 3, "x")], "names lines 5-3"),
    ([(IF, LAUNCH, "a"), (LAUNCH, LAUNCH, "b")], f"edits overlap at line {LAUNCH}"),
    ([], "the model proposed no patch"),
])
def test_line_ranges_are_checked_against_the_file(edits, why) -> None:
    got, reason = line_edits(edits, SRC)
    assert got == () and why in reason


def test_line_edits_replace_whole_lines_and_keep_a_missing_final_newline() -> None:
    edits, why = line_edits([(2, 2, "B")], "a\nb\nc")
    assert not why and apply("a\nb\nc", list(edits)) == "a\nB\nc"
    edits, _ = line_edits([(3, 3, "C\nD")], "a\nb\nc")
    assert apply("a\nb\nc", list(edits)) == "a\nb\nC\nD"
    edits, _ = line_edits([(1, 1, "")], "a\nb\n")
    assert apply("a\nb\n", list(edits)) == "b\n"


@pytest.mark.parametrize("replacement, why", [
    ("\n".join(["        pass"] * (MAX_LINES_CHANGED + 1)), f"more than {MAX_LINES_CHANGED}"),
    ("        if n >= 256:", "the patch changes nothing"),
    ("        if n >= 256", "not valid Python"),
    ("        if n == 1000:", "adds a branch on 1000"),
])
def test_large_broken_or_case_keyed_patches_are_refused(replacement, why) -> None:
    edits, bad = line_edits([(IF, IF, replacement)], SRC)
    assert not bad
    patched, reason = check_patch(SRC, edits, "submission.py", [FAILING[2]])
    assert patched == "" and why in reason


def test_a_branch_on_a_number_the_kernel_already_holds_is_not_keyed_on_the_cases() -> None:
    failing = [FAILING[2].model_copy(update={"inputs": {"case": {"params": {"n": 256}}}})]
    edits, _ = line_edits([(IF, IF, "        if n >= 256 or n > 0:")], SRC)
    patched, reason = check_patch(SRC, edits, "submission.py", failing)
    assert reason == "" and "n > 0" in patched
