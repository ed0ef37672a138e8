"""The plain-text report: the answer first (verdict, then per failed/unverified criterion the cause, where,
the smallest failing case and its rerun command), repeated items grouped with a count, no Markdown escaping,
hostile text inert, and a passing report short unless verbose."""

from __future__ import annotations

from reviewer.core.models import Review
from reviewer.drafting.render import render_markdown
from reviewer.formats.text import render_text

_SPAN = {"file": "submission.py", "start_line": 18, "end_line": 18}


def _ev(i: str, tool: str, crit: str, out: str, *, shape: list[int] | None = None, **kw) -> dict:
    inputs = {"case": {"id": i, "seed": 1, "label": f"case {i}"},
              "tensors": [{"path": "0", "shape": shape, "dtype": "float32"}]} if shape else {}
    return {"id": i, "tool": tool, "criteria": [crit], "outcome": out, "summary": kw.pop("summary", f"{i} {out}"),
            "rerun": f"kreview rerun sub --tool {tool} --case '{{\"id\":\"{i}\"}}' --seed 0", "inputs": inputs, **kw}


def _review(verdict: str = "fail") -> Review:
    oob = "out-of-bounds load of x_ptr at lanes 1000..1023"
    failing = [_ev(f"memcheck-{n}", "memcheck", "correctness", "fail", shape=[64, s], defect="oob", spans=[_SPAN],
                   summary=oob) for n, s in enumerate([4096, 1000, 2048, 999, 1025, 1023], start=1)]
    passing = [_ev(f"correctness-{n}", "correctness", "correctness", "pass", shape=[64, 1000],
                   summary="matches within tolerance (max abs error 1e-9, max 1306340 ULP)") for n in (1, 2)]
    evidence = passing + (failing if verdict == "fail" else [])
    return Review.model_validate({
        "run_id": "r1", "status": "awaiting_signoff", "overall": "reject" if verdict == "fail" else "accept",
        "overall_reason": "failed: correctness" if verdict == "fail" else "all required criteria passed",
        "seed": 0, "created_at": "2026-12-03T04:00:00+00:00",
        "submission": {"root": "/x/sub", "format": "kernelbench", "framework": "triton",
                       "reference_file": "reference.py", "submission_file": "submission.py", "name": "my_gelu_buggy"},
        "criteria": [{"id": "correctness", "title": "Correctness", "verdict": verdict,
                      "summary": "6 of 8 checks failed" if verdict == "fail" else "all 2 checks passed",
                      "evidence": [e["id"] for e in evidence]},
                     {"id": "performance", "title": "Performance", "verdict": "unverified", "required": False,
                      "summary": "no GPU", "evidence": []}],
        "evidence": evidence, "draft": {"drafter": "offline"},
        "findings": [{"id": f"f{n}", "category": "int32_index_overflow", "message": "`row * stride` <wraps> \x1b[31m",
                      "spans": [_SPAN]} for n in (1, 2)],
    })


def test_the_cause_comes_first_with_place_smallest_case_and_rerun_grouped_once() -> None:
    out = render_text(_review())
    lines = out.splitlines()
    assert lines[0].startswith("my_gelu_buggy: REJECT")
    cause = next(i for i, ln in enumerate(lines) if ln.startswith("FAIL"))
    assert cause < next(i for i, ln in enumerate(lines) if ln.startswith("Criteria:"))
    # the same defect at the same line, six times: one line with its count
    assert "out-of-bounds load" in lines[cause] and "[x6: memcheck-1" in out
    assert out.count("out-of-bounds load of x_ptr") == 1
    facts = next(i for i in range(cause, len(lines)) if "smallest case" in lines[i])
    assert "at submission.py:18" in lines[facts]
    assert "smallest case: case memcheck-4 (float32[64, 999])" in lines[facts]  # fewest elements
    assert lines[facts + 1].strip().startswith("rerun: kreview rerun sub --tool memcheck --case")
    assert '"id":"memcheck-4"' in lines[facts + 1]
    # the criterion's row counts and points up: the cause is said once
    row = next(ln for ln in lines if ln.startswith("  FAIL"))
    assert row.rstrip().endswith("6 of 8 checks failed (above)")


def test_a_long_cause_is_wrapped_in_full_and_a_value_mismatch_names_where_values_are_computed() -> None:
    long = ("nominal, seed 7: output 0: 43178 of 65536 elements (65.9%) outside atol=1e-05, rtol=1.3e-06; max abs "
            "error 0.000474; worst at index [11, 3217]: expected -0.00919301, got -0.00871939; error vs float64 "
            "is 479x the reference's own (budget 64x)")
    spans = [{"file": "submission.py", "start_line": 18, "end_line": 21}, {"file": "submission.py", "start_line": 30,
                                                                         "end_line": 30}]
    data = _review().model_dump()
    for e in data["evidence"]:
        if e["id"] == "memcheck-1":
            e.update(summary=long, defect="mismatch", spans=spans)
    out = render_text(Review.model_validate(data))
    assert long + " [memcheck-1]" in " ".join(out.split())  # in full, wrapped, not cut
    assert out.count("43178 of 65536") == 1  # not again in the criteria row or a details section
    assert "values computed at submission.py:18-21, submission.py:30" in out
    cause = out[out.index("FAIL "): out.index("Criteria:")]
    assert max(len(ln) for ln in cause.splitlines() if "rerun:" not in ln) <= 120


def test_a_criterion_not_assessed_gives_one_reason() -> None:
    data = _review().model_dump()
    data["criteria"][1].update(summary="not assessed: correctness did not pass (correctness fail: 6 of 8 ...)",
                               blocked_by=["correctness"])
    data["evidence"].append({**_ev("benchmark-1", "benchmark", "performance", "unverified"),
                             "summary": "not measured: no CUDA device"})
    data["criteria"][1]["evidence"] = ["benchmark-1"]
    out = render_text(Review.model_validate(data))
    assert "no CUDA device" not in out  # the item's own reason is behind -v
    assert out.count("not assessed: correctness did not pass") == 2  # the cause and the row, nothing more
    assert "(correctness fail" not in out


def test_text_is_plain_not_markdown_and_hostile_text_is_inert() -> None:
    out = render_text(_review())
    assert "my_gelu_buggy" in out and "\\_" not in out and "\\[" not in out and "&lt;" not in out
    assert "\x1b" not in out
    # two identical unconfirmed findings: said once, as unconfirmed, the message behind -v
    assert out.count("int32_index_overflow") == 1 and "unconfirmed: int32_index_overflow at submission.py:18" in out
    full = render_text(_review(), verbose=True)
    assert full.count("int32_index_overflow") == 1 and "concern x2: int32_index_overflow" in full
    assert "`row * stride` <wraps>" in full and "\x1b" not in full


def test_a_passing_report_fits_a_screen_and_hides_passing_details_unless_verbose() -> None:
    review = _review("pass")
    short = render_text(review)
    assert len(short.splitlines()) <= 24
    assert "ULP" not in short and "kreview show r1 -v" in short
    full = render_text(review, verbose=True)
    assert "1306340 ULP" in full and "kreview rerun sub --tool correctness" in full


def test_markdown_leads_with_the_same_block_and_groups_findings() -> None:
    md = render_markdown(_review())
    act = md.index("**Correctness**")
    assert act < md.index("| criterion | verdict |")
    head = md[: md.index("## Evidence")]
    assert "×6" in head and head.count("out-of-bounds load of x\\_ptr") == 1
    assert md.count("int32\\_index\\_overflow") == 1 and "×2" in md


def test_a_rerun_keeps_the_reviews_id_prints_the_mismatch_and_names_the_exit() -> None:
    from reviewer.cli.core import reproduced
    from reviewer.core.errors import UsageError
    from reviewer.core.models import Evidence
    from reviewer.formats.text import rerun_report

    got = Evidence.model_validate(_ev("correctness-1", "correctness", "correctness", "fail", summary="3 of 8 wrong",
                                      result={"comparison": {"ok": False, "reason": "worst at [0, 7]: expected 1, got 2"},
                                              "error_budget": {"ok": False, "ratio": 595.51, "outputs": [1, 2]}}))
    builds = Evidence.model_validate(_ev("builds-1", "builds", "builds", "pass"))
    items = reproduced([builds, got], "correctness", "correctness-3")
    assert [e.id for e in items] == ["builds-1", "correctness-3"]
    out = rerun_report(items, "correctness")
    assert "correctness-3 [fail] 3 of 8 wrong" in out and "comparison: worst at [0, 7]: expected 1, got 2" in out
    assert "error_budget: ok=False ratio=596" in out and out.rstrip().endswith("exit 1")
    try:
        reproduced(items, "correctness", "memcheck-2")
    except UsageError as exc:
        assert "memcheck-2" in str(exc)
    else:
        raise AssertionError("an id of another tool is a usage error")
    assert "--evidence memcheck-4" in render_text(_review())


def test_show_prints_plain_text_off_a_terminal_and_markdown_only_when_asked(tmp_path) -> None:
    from tests.cli_runner import invoke

    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "review.json").write_text(_review().model_dump_json())
    text = invoke("show", "r1", "--runs-dir", str(tmp_path / "runs"))
    assert text.exit_code == 0 and text.stdout.startswith("my_gelu_buggy: REJECT") and "\\_" not in text.stdout
    verbose = invoke("show", "r1", "--runs-dir", str(tmp_path / "runs"), "-v")
    assert "Evidence (rerun any item):" in verbose.stdout and "Evidence" not in text.stdout
    md = invoke("show", "r1", "--runs-dir", str(tmp_path / "runs"), "--format", "markdown")
    assert md.stdout.startswith("# Kernel review: my\\_gelu\\_buggy — REJECT")


def test_markdown_says_a_cause_in_full_once_and_a_blocked_criterion_one_reason() -> None:
    data = _review().model_dump()
    long = "output 0: " + "wrong element " * 30 + "end of cause"
    for e in data["evidence"]:
        if e["id"] == "memcheck-1":
            e.update(summary=long, defect="mismatch",
                     spans=[{"file": "submission.py", "start_line": 18, "end_line": 21}])
    data["criteria"][1].update(summary="not assessed: correctness did not pass (correctness fail: 6 of 8 ...)",
                               blocked_by=["correctness"])
    md = render_markdown(Review.model_validate(data))
    head = md[: md.index("## Evidence")]
    assert "end of cause" in head and "values computed at `submission.py:18-21`" in head
    assert "| ❌ fail | 6 of 8 checks failed (above) |" in head
    assert head.count("not assessed: correctness did not pass") == 2 and "(correctness fail" not in head
