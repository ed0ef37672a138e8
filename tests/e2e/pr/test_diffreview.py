"""The old/new comparison on a real repository: Triton and torch kernels in KernelBench format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reviewer.cli import app
from reviewer.core.config import ReviewConfig
from reviewer.pr.diffreview import review_diff
from reviewer.runs import read_review
from tests.e2e.pr.gitrepo import CORRECT, RAISES, REFERENCE, TRITON_IMPORTER, TRITON_OP, Repo


def test_old_and_new_versions_side_by_side(tmp_path: Path, config: ReviewConfig) -> None:
    r = Repo(tmp_path / "repo")
    base = r.commit("base", {
        "kernels/affine/reference.py": REFERENCE, "kernels/affine/submission.py": CORRECT,
        "kernels/tri/reference.py": REFERENCE, "kernels/tri/submission.py": TRITON_IMPORTER,
        "kernels/tri/ops/affine.py": TRITON_OP.format(bias="1.0"), "README.md": "hi\n"})
    head = r.commit("head", {
        "kernels/affine/submission.py": RAISES,                       # breaks at a changed line
        "kernels/tri/ops/affine.py": TRITON_OP.format(bias="0.5"),    # wrong result, via an imported module
        "kernels/fresh/reference.py": REFERENCE, "kernels/fresh/submission.py": CORRECT})  # new submission
    runs = tmp_path / "runs"
    dr = review_diff(r.root, "main~1", "main", runs_dir=runs,
                     review_config=config.model_copy(update={"only": ["builds", "correctness"]}))
    assert (dr.merge_base, dr.head) == (base, head)
    by = {t.target.dir: t for t in dr.targets}
    assert sorted(by) == ["kernels/affine", "kernels/fresh", "kernels/tri"]

    def trend(d: str) -> dict[str, tuple]:
        return {c.id: (c.old, c.new, c.trend) for c in by[d].criteria if c.id in ("builds", "correctness")}

    assert trend("kernels/affine") == {"builds": ("pass", "fail", "regression"),
                                       "correctness": ("pass", "unverified", "regression")}
    assert trend("kernels/tri") == {"builds": ("pass", "pass", "unchanged"),
                                    "correctness": ("pass", "fail", "regression")}
    assert trend("kernels/fresh") == {"builds": (None, "pass", "new"), "correctness": (None, "pass", "new")}
    assert by["kernels/fresh"].old_run is None
    # the new version waits for a human; the old one ran to completion with the same seed
    for t in (by["kernels/affine"], by["kernels/tri"]):
        new, old = read_review(runs / t.new_run), read_review(runs / t.old_run)
        assert (new.status, old.status, new.seed) == ("awaiting_signoff", "completed", old.seed)
    # one inline comment: the raising line; the Triton mismatch has no source line, so summary only
    [c] = dr.comments
    assert (c.path, c.line, c.start_line, c.side, c.target) == ("kernels/affine/submission.py", 8, None, "RIGHT",
                                                                 "kernels/affine")
    assert dr.off_diff == []


def test_kreview_diff_cli_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = Repo(tmp_path / "repo")
    r.commit("base", {"k/reference.py": REFERENCE, "k/submission.py": CORRECT,
                      ".kreview.toml": 'paths = ["k/**"]\nonly = ["builds"]\nseeds = 1\n'})
    r.commit("head", {"k/submission.py": RAISES})
    # run from inside the repository with the default runs folder, as a user would
    monkeypatch.chdir(r.root)
    monkeypatch.delenv("KREVIEW_RUNS_DIR", raising=False)
    res = CliRunner().invoke(app, ["diff", "--seed", "3", "--format", "json", "HEAD~1", "HEAD"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    # the runs leave the repository clean (.kreview ignores itself) and their reruns name trees that exist
    import git

    assert git.Repo(r.root).git.status("--porcelain") == ""
    assert (r.root / ".kreview" / ".gitignore").read_text().strip().endswith("*")
    import shlex

    for t in data["targets"]:
        for run in (t["new_run"], t["old_run"]):
            review = read_review(Path(data["runs_dir"]) / run)
            reruns = [e.rerun for e in review.evidence if e.rerun]
            assert reruns
            for cmd in reruns:
                assert Path(shlex.split(cmd)[2]).is_dir(), cmd  # kreview rerun DIR ...
    [t] = data["targets"]
    assert t["new_overall"] == "reject" and t["old_overall"] in ("accept", "needs_human")
    assert [(c["path"], c["line"]) for c in data["comments"]] == [("k/submission.py", 8)]
    bad = CliRunner().invoke(app, ["diff", "--repo", str(r.root), "HEAD~1", "nope"])
    assert bad.exit_code == 2 and "not a revision" in bad.output
