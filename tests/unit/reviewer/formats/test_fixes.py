"""Verified fixes in every output: the diff under its criterion (text, Markdown), SARIF 2.1.0 ``fixes`` and the
PR bot's suggestion block; patch text from a hostile submission stays inert."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.fixes import DroppedFix, FixReport, LineChange
from reviewer.drafting.render import render_markdown
from reviewer.fix import _fix
from reviewer.fix.candidates import candidates
from reviewer.fix.verify import Verification
from reviewer.formats.fixes import fence, suggestion
from reviewer.formats.sarif import to_sarif
from reviewer.formats.text import render_text
from reviewer.core.models import Claim, Draft, DraftSection
from reviewer.pr.comments import plan_comments
from reviewer.pr.models import FileChange, LineRange, ReviewTarget
from tests.kernelfiles import KERNELS
from tests.unit.reviewer.fix.stubs import ev, review

SRC = (KERNELS / "softmax/bad_no_max_subtraction.py").read_text()
FIXED = SRC.replace("    num = tl.exp(x)\n", "    x = x - tl.max(x, axis=0)\n    num = tl.exp(x)\n")
EXP_LINE = SRC.splitlines().index("    num = tl.exp(x)") + 1


def _reviewed(root: str = "/x"):
    r = review([ev("numerics-2", "numerics", "numerics", "fail", defect="large_magnitude", summary="exp overflow")],
               root=root)
    (cand,) = candidates(r, SRC)
    fix = _fix(1, cand, SRC, Verification(True, "", [], ["correctness", "numerics"], FIXED, 3.0))
    r = r.model_copy(update={"fixes": FixReport(fixes=[fix], dropped=[DroppedFix(
        kind="fp32_accumulator", criterion="numerics", description="d", why="numerics-2 still fail")])})
    return r, fix


def test_text_shows_the_diff_under_the_failed_criterion() -> None:
    r, _ = _reviewed()
    out = render_text(r)
    head = out.index("FAIL")
    assert out.index("verified fix fix-1 (max_subtraction)") > head
    assert "+    x = x - tl.max(x, axis=0)" in out
    assert "fp32_accumulator for numerics: dropped, numerics-2 still fail" in out


def test_markdown_puts_a_diff_block_in_the_criterion_section() -> None:
    r, _ = _reviewed()
    section = DraftSection(criterion="numerics", verdict="fail", claims=[Claim(text="overflow")])
    r = r.model_copy(update={"draft": Draft(drafter="t", sections=[section])})
    md = render_markdown(r)
    section = md[md.index("## Numerics"):]
    assert "**Verified fix `fix-1`**" in section and "```diff\n--- a/submission.py" in section
    assert "+    x = x - tl.max(x, axis=0)" in section


def test_sarif_fix_is_an_insertion_replacement_on_the_criterion_result() -> None:
    r, fix = _reviewed()
    res = next(x for x in to_sarif(r)["runs"][0]["results"] if x["ruleId"] == "criterion/numerics")
    (change,) = res["fixes"][0]["artifactChanges"]
    (rep,) = change["replacements"]
    assert rep["deletedRegion"] == {"startLine": EXP_LINE, "startColumn": 1, "endLine": EXP_LINE, "endColumn": 1}
    assert rep["insertedContent"]["text"] == "    x = x - tl.max(x, axis=0)\n"
    assert change["artifactLocation"]["uri"].endswith("submission.py")
    passed = next(x for x in to_sarif(r)["runs"][0]["results"] if x["ruleId"] == "criterion/correctness")
    assert "fixes" not in passed


def test_suggestion_block_on_the_changed_line(tmp_path: Path) -> None:
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "submission.py").write_text(SRC)
    r, fix = _reviewed(root=str(tmp_path / "k"))
    target = ReviewTarget(dir="k", name="k", reasons=["k/submission.py added"], in_base=False, in_head=True)
    change = FileChange(path="k/submission.py", status="added", added=[LineRange(start=1, end=len(SRC.splitlines()))])
    planned, _ = plan_comments(r, target, [change], tmp_path)
    (c,) = [p for p in planned if "verified fix" in p.body]
    anchor = fix.changes[0]
    assert c.line == anchor.end_line and c.path == "k/submission.py"
    assert "(max\\_subtraction; origin `rule`)" in c.body
    assert "```suggestion\n" + "\n".join(anchor.new) + "\n```" in c.body
    off = FileChange(path="k/submission.py", status="modified", added=[LineRange(start=1, end=2)])
    planned, notes = plan_comments(r, target, [off], tmp_path)
    assert not [p for p in planned if "verified fix" in p.body]
    assert any("verified fix fix-1" in n.text for n in notes)


def test_fence_outgrows_backticks_in_the_patch() -> None:
    assert fence("a ``` b") == "````"
    change = LineChange(start_line=1, end_line=1, old=["x"], new=["y = '```'"])
    assert suggestion(change).startswith("````suggestion\n")


def test_sarif_with_fixes_is_valid_sarif() -> None:
    import json

    import jsonschema

    schema = json.loads((Path(__file__).parents[3] / "data/schemas/sarif-2.1.0-subset.schema.json").read_text())
    jsonschema.Draft7Validator(schema).validate(to_sarif(_reviewed()[0]))


def test_a_suggestion_that_would_quote_a_marker_becomes_a_note(tmp_path: Path) -> None:
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "submission.py").write_text(SRC)
    r, fix = _reviewed(root=str(tmp_path / "k"))
    planted = fix.changes[0].model_copy(update={"new": [*fix.changes[0].new, "# <!-- kreview:fp=0123456789abcdef -->"]})
    fixes = r.fixes.model_copy(update={"fixes": [fix.model_copy(update={"changes": [planted]})]})
    r = r.model_copy(update={"fixes": fixes})
    target = ReviewTarget(dir="k", name="k", reasons=["k/submission.py added"], in_base=False, in_head=True)
    change = FileChange(path="k/submission.py", status="added", added=[LineRange(start=1, end=len(SRC.splitlines()))])
    planned, notes = plan_comments(r, target, [change], tmp_path)
    assert not [p for p in planned if "verified fix" in p.body]
    assert any("verified fix fix-1" in n.text for n in notes)
