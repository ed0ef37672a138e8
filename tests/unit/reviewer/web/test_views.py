"""What the review page's first screen and evidence tables are made of, from a stored review
(tests/data/readme/gelu_review.json, a real run of examples/gelu_triton_buggy): no review is run."""

from __future__ import annotations

import shutil
from pathlib import Path

from reviewer.core.models import Review, SourceSpan
from reviewer.web.views import criteria_views, evidence_view, focus_views, source_files

ROOT = Path(__file__).resolve().parents[4]
STORED = ROOT / "tests" / "data" / "readme" / "gelu_review.json"


def _run(tmp_path: Path, cite_line: int | None = None) -> tuple[Review, Path]:
    review = Review.model_validate_json(STORED.read_text())
    run = tmp_path / "run"
    (run / "source").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "gelu_triton_buggy" / "submission.py", run / "source" / "submission.py")
    if cite_line:
        first = next(e for e in review.evidence if e.id == "correctness-1")
        first.spans = [SourceSpan(file="submission.py", start_line=cite_line, end_line=cite_line)]
    return review, run


def _focus(review: Review, run: Path):
    criteria, sources = criteria_views(review), source_files(review, run)
    return focus_views(review, criteria, sources)


def test_failed_before_unverified_required_before_optional_and_repeats_grouped(tmp_path) -> None:
    review, run = _run(tmp_path)
    focus = _focus(review, run)
    assert [f.criterion.id for f in focus] == ["correctness", "generality", "numerics", "performance"]
    correctness = focus[0]
    assert len(correctness.items) == 1  # three items, one defect at one (no) place: one group
    item = correctness.items[0]
    assert item.view.ev.id == "correctness-1" and item.like_it == ["correctness-2", "correctness-3"]
    assert item.view.rerun.startswith("kreview rerun ") and item.view.rerun.endswith("--evidence correctness-1")
    assert item.excerpts == []  # a mismatch names no line


def test_a_cited_line_comes_with_one_line_of_context(tmp_path) -> None:
    source = (ROOT / "examples" / "gelu_triton_buggy" / "submission.py").read_text().splitlines()
    line = next(i for i, t in enumerate(source, start=1) if "tanh_u =" in t)
    review, run = _run(tmp_path, cite_line=line)
    item = _focus(review, run)[0].items[0]
    (excerpt,) = item.excerpts
    assert [ln.no for ln in excerpt.lines] == [line - 1, line, line + 1]
    assert [bool(ln.cites) for ln in excerpt.lines] == [False, True, False]
    assert "tanh_u =" in excerpt.lines[1].text
    assert item.like_it == []  # correctness-1 now has a place of its own


def test_evidence_tables_have_readable_labels_and_keep_short_texts() -> None:
    review = Review.model_validate_json(STORED.read_text())
    e = review.evidence[0].model_copy(update={
        "result": {"comparison": {"outputs": [{"max_abs_error": 0.000473, "passed": False}]}, "long": "x" * 500},
        "inputs": {"case": {"id": "c-0", "seed": 7}, "shape": [16, 4096]},
        "config": {"device": "cpu", "unsafe": False}})
    tables = {t.title: dict(t.rows) for t in evidence_view(e).tables}
    assert tables["result"] == {"comparison › outputs[0] › max abs error": "0.000473"}
    assert tables["inputs"] == {"case › id": "c-0", "case › seed": "7", "shape": "[16, 4096]"}
    assert tables["configuration"] == {"device": "cpu", "unsafe": "no"}


def test_a_verified_fix_shows_under_its_failed_criterion_as_numbered_diff_rows(tmp_path) -> None:
    from tests.fixstubs import HOSTILE_TAIL, verified_fix

    review, run = _run(tmp_path)
    text = (run / "source" / "submission.py").read_text()
    line = next(i for i, t in enumerate(text.splitlines(), start=1) if "tl.store(" in t)
    review.fixes = verified_fix(text, "tl.store(", "tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty))",
                                criterion="correctness", fixed=["correctness-1", "correctness-2"], kept=["builds-1"])
    focus = {f.criterion.id: f for f in _focus(review, run)}
    (fx,) = focus["correctness"].fixes
    assert all(not f.fixes for k, f in focus.items() if k != "correctness")
    assert [(r.evidence, r.before, r.after) for r in fx.fixed] == [("correctness-1", "fail", "pass"),
                                                                    ("correctness-2", "fail", "pass")]
    assert fx.kept == 1 and fx.apply.endswith(f"--run {review.run_id} --apply")
    assert [r.kind for r in fx.rows] == ["hunk", "ctx", "ctx", "ctx", "del", "add", "ctx", "ctx", "ctx"]
    (removed,) = [r for r in fx.rows if r.kind == "del"]
    (added,) = [r for r in fx.rows if r.kind == "add"]
    assert (removed.old, removed.new, added.old, added.new) == (line, None, None, line)
    assert "tl.store(out_ptr + offs, 0.5 * x" in removed.text and added.text.endswith(HOSTILE_TAIL)
    assert [(r.old, r.new) for r in fx.rows if r.kind == "ctx"][0] == (line - 3, line - 3)


def test_a_run_without_fixes_and_an_unfailed_criterion_get_none(tmp_path) -> None:
    from reviewer.core.fixes import FixReport

    review, run = _run(tmp_path)
    assert all(f.fixes == [] for f in _focus(review, run))
    review.fixes = FixReport(note="no rule-based candidate")
    assert all(f.fixes == [] for f in _focus(review, run))


def test_diff_rows_number_both_sides_and_keep_a_removed_line_that_looks_like_a_header() -> None:
    from reviewer.web.views import diff_rows

    diff = "--- a/k.py\n+++ b/k.py\n@@ -4,2 +4,3 @@\n--- x\n+++ y\n+z\n ctx\n\\ No newline at end of file\n"
    rows = diff_rows(diff)
    assert [(r.kind, r.old, r.new, r.text) for r in rows] == [
        ("hunk", None, None, "@@ -4,2 +4,3 @@"), ("del", 4, None, "-- x"), ("add", None, 4, "++ y"),
        ("add", None, 5, "z"), ("ctx", 5, 6, "ctx")]
