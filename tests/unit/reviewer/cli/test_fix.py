"""``kreview fix`` without a sandbox: a stored review (``--run``), a scripted rerun, the patch file, ``--apply``
with its backup, exit 1 when nothing verifies and exit 2 on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import reviewer.fix.verify as verify
from reviewer.drafting.render import render_markdown
from reviewer.runs import create_run_dir, write_review
from tests.cli_runner import invoke
from tests.kernelfiles import KERNELS
from tests.unit.reviewer.fix.stubs import ev, review

KERNEL = KERNELS / "softmax/bad_no_max_subtraction.py"
FAILING = [ev("correctness-1", "correctness", "correctness", "pass"),
           ev("numerics-2", "numerics", "numerics", "fail", defect="large_magnitude", summary="exp overflow")]


def _stored(tmp_path: Path) -> tuple[Path, Path, str]:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "submission.py").write_text(KERNEL.read_text())
    runs = tmp_path / "runs"
    r = review(FAILING, root=str(sub.resolve()))
    run_dir = create_run_dir(runs, r.run_id)
    write_review(run_dir, r, render_markdown(r))
    return sub, runs, r.run_id


def _rerun_passes(ok: bool):
    def fake(rev, root, config, file, patched, tools):
        assert "tl.max(x, axis=0)" in patched and not (Path(root) / file).read_text().count("tl.max(x, axis=0)")
        return review([e.model_copy(update={"outcome": "pass" if ok else e.outcome}) for e in FAILING]), ""
    return fake


def test_fix_writes_the_verified_patch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub, runs, run_id = _stored(tmp_path)
    monkeypatch.setattr(verify, "rerun", _rerun_passes(True))
    out = tmp_path / "fix.patch"
    res = invoke("fix", str(sub), "--run", run_id, "--runs-dir", str(runs), "--out", str(out))
    assert res.exit_code == 0, res.output
    assert "+    x = x - tl.max(x, axis=0)" in out.read_text()
    assert (sub / "submission.py").read_text() == KERNEL.read_text()


def test_fix_apply_patches_in_place_and_keeps_a_backup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub, runs, run_id = _stored(tmp_path)
    monkeypatch.setattr(verify, "rerun", _rerun_passes(True))
    res = invoke("fix", str(sub), "--run", run_id, "--runs-dir", str(runs), "--apply")
    assert res.exit_code == 0, res.output
    assert "    x = x - tl.max(x, axis=0)\n    num = tl.exp(x)\n" in (sub / "submission.py").read_text()
    assert (sub / "submission.py.kreview-orig").read_text() == KERNEL.read_text()


def test_no_verified_fix_exits_1_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub, runs, run_id = _stored(tmp_path)
    monkeypatch.setattr(verify, "rerun", _rerun_passes(False))
    res = invoke("fix", str(sub), "--run", run_id, "--runs-dir", str(runs), "--apply")
    assert res.exit_code == 1, res.output
    assert "no verified fix" in res.output and "numerics-2" in res.output
    assert (sub / "submission.py").read_text() == KERNEL.read_text()
    assert not (sub / "submission.py.kreview-orig").exists()


def test_bad_input_is_a_usage_error(tmp_path: Path) -> None:
    res = invoke("fix", str(tmp_path / "nowhere"))
    assert res.exit_code == 2 and "not a directory" in res.output
    sub, runs, _ = _stored(tmp_path)
    res = invoke("fix", str(sub), "--run", "nosuchrun", "--runs-dir", str(runs))
    assert res.exit_code == 2
    res = invoke("fix", str(sub), "--format", "yaml")
    assert res.exit_code == 2


def test_review_fix_stores_the_fixes_with_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reviewer.cli.core import with_fixes
    from reviewer.core.config import ReviewConfig
    from reviewer.runs import find_run, read_review

    sub, runs, run_id = _stored(tmp_path)
    monkeypatch.setattr(verify, "rerun", _rerun_passes(True))
    run_dir = find_run(run_id, runs)
    stored = read_review(run_dir).model_copy(update={"run_dir": str(run_dir)})
    got = with_fixes(stored, sub, ReviewConfig(runs_dir=runs), None)
    assert [f.kind for f in got.fixes.fixes] == ["max_subtraction"]
    again = read_review(run_dir)
    assert again.fixes == got.fixes
    from reviewer.formats.text import render_text

    assert "+    x = x - tl.max(x, axis=0)" in render_text(again)  # kreview show prints it
