"""Every branch of the host code is exercised or reported (issue 16): the generality tool measures
which branches of the submission's own Python ran over all its configurations (instrument
``host_coverage``), aims sizes at size thresholds no configuration crossed, and names what stayed
untaken (tools/generality/branches.py). The reviews run in tests/e2e/test_kernel_verdicts.py, which
calls ``check_host_branches`` on each file of tests/kernels/host_branches."""

from __future__ import annotations

import shlex

from tests.kernelfiles import Reviewed


def _branch_item(run: Reviewed):
    (item,) = [e for e in run.review.evidence if e.tool == "generality" and e.check.startswith("host-code branch")]
    return item


def check_host_branches(run: Reviewed) -> None:
    """Reviewed with builds, correctness, generality, one seed."""
    r, want, stem = run.review, run.want, run.path.stem
    item = _branch_item(run)
    assert item.rerun and "--seed" in item.rerun
    unreached = {(u["condition"], u["side"]): u for u in item.result["unreached"]}
    if stem == "bad_wide_rows_drop_tail":
        # found only by the size aimed at the untaken branch, and said so
        fail = next(e for e in r.evidence if e.tool == "generality" and e.outcome == "fail")
        assert "dim=8193" in fail.summary and "cols > WIDE" in fail.summary, fail.summary
    elif stem == "bad_third_batch_tier_drops_rows":
        # each untaken tier has its own allowance: the middle tier's size ran (correct) and did not use
        # up the last tier's, whose size fails
        fail = next(e for e in r.evidence if e.tool == "generality" and e.outcome == "fail")
        assert "batch=4001" in fail.summary and "rows > FOUR_ROWS" in fail.summary, fail.summary
        assert ("rows > TWO_ROWS", "true") not in unreached and ("rows > FOUR_ROWS", "true") not in unreached
    elif want["generality"] == "unverified":
        assert item.outcome == "unverified" and item.defect == "branch_not_run", item.summary
        side = unreached[("cols > WIDE", "true")]
        assert side["kind"] == "threshold" and side["thresholds"] == [1 << 22]
        assert "`if cols > WIDE`" in item.summary and "dim=4194305" in item.summary and "dim=2049" in item.summary, item.summary
        assert any("skipped" == t["verdict"] for t in side["tried"])
        assert item.spans and "cols > WIDE" in item.spans[0].quote
        # the rerun command repeats the plan: the same branches, the same sizes tried, the same verdicts
        from tests.e2e.test_verdict_determinism import _probe

        again = next(g for g in _probe(shlex.split(item.rerun)[1:]) if g["check"] == item.check)
        assert (again["outcome"], again["defect"]) == (item.outcome, item.defect)
        for key in ("unreached", "branch_sides", "taken", "calls"):
            assert again["result"][key] == item.result[key], key
    else:
        # the long-row path ran (aimed size), the raise and the 1-D path are info, never unverified
        assert item.outcome == "info", item.summary
        assert ("cols > WIDE", "true") not in unreached
        assert unreached[("x.dtype not in (torch.float32, torch.float16, torch.bfloat16)", "true")]["kind"] == \
            "invalid_input"
        assert unreached[("x.dim() == 1", "true")]["kind"] == "rank"
