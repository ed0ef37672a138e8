"""Full reviews of NKI submissions through the normal session (sandboxed children, the NKI prelude):
every file under tests/kernels/nki/<family>/ gets the verdicts its docstring names and the nki tool's
failing evidence carries the named defect (``NKI-defect:``), a source span and a rerun command (reviewed
by tests/e2e/test_kernel_verdicts.py, which calls ``check_nki`` on each); the bundled examples get the
verdicts their docstrings name (there too, with ``check_nki_example``)."""

from __future__ import annotations

from pathlib import Path

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review
from tests.kernelfiles import KERNELS, Reviewed, materialize
from tools.engine.nki.version import INTERPRETER_LABEL

TOOLS = ["builds", "correctness", "nki"]


def nki_defect(path: Path) -> str:
    for line in path.read_text().splitlines()[:40]:
        if line.strip().startswith("NKI-defect:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{path} has no 'NKI-defect:' line")


def review(sub: Path, config: ReviewConfig) -> Review:
    return start_review(sub, config.model_copy(update={"only": TOOLS, "seeds": 1}))


def check_nki(run: Reviewed) -> None:
    """Reviewed with ``TOOLS``, one seed (tests/e2e/test_kernel_verdicts.py)."""
    path, r = run.path, run.review
    assert r.submission.framework == "nki"
    nki = [e for e in r.evidence if e.tool == "nki"]
    failing = [e for e in nki if e.outcome == "fail"]
    defect = nki_defect(path)
    if defect == "none":
        assert failing == [], [e.summary for e in failing]
        assert {"builds", "correctness"} <= {c for e in nki if e.outcome == "pass" for c in e.criteria}
    else:
        assert defect in {e.defect for e in failing}, [(e.defect, e.summary) for e in nki]
    for e in failing:
        assert e.rerun.startswith("kreview rerun") and "--tool nki" in e.rerun
        assert INTERPRETER_LABEL in e.summary and e.config["simulator"].startswith(INTERPRETER_LABEL)
        if e.defect != "no_nki_kernel":
            assert e.spans and e.spans[0].file == "submission.py" and e.spans[0].quote.strip()


def check_nki_example(run: Reviewed) -> None:
    """The bundled NKI examples, reviewed with ``TOOLS``, one seed (tests/e2e/test_kernel_verdicts.py): every
    item but the nki tool's own ran in the interpreter."""
    assert all(e.config.get("run_setup", "").startswith(INTERPRETER_LABEL) for e in run.review.evidence
               if e.tool != "nki" and e.config)


def test_documented_compiler_message_reaches_the_review(tmp_path: Path, config: ReviewConfig) -> None:
    r = review(materialize(KERNELS / "nki/add/partition_256.py", tmp_path / "sub"), config)
    [item] = [e for e in r.evidence if e.tool == "nki" and e.outcome == "fail"]
    assert "SyntaxError: Size of partition dimension 256 exceeds architecture limitation of 128." in item.summary
    assert item.result["message_source"] == "wording of the NKI documentation"
    assert item.result["error"]["doc"].endswith("#nki-errors-err-num-partition-exceed-arch-limit")
    assert item.spans[0].quote.strip() == "a_tile = nl.load(a[r, i_f], mask=(r < rows))"


def test_rerun_command_reproduces_the_item(tmp_path: Path, config: ReviewConfig) -> None:
    import json
    import shlex

    from typer.testing import CliRunner

    from reviewer.cli import app

    sub = materialize(KERNELS / "nki/matmul/psum_not_zeroed.py", tmp_path / "sub")
    r = review(sub, config)
    [item] = [e for e in r.evidence if e.tool == "nki" and e.outcome == "fail"]
    argv = shlex.split(item.rerun)
    assert argv[:2] == ["kreview", "rerun"]
    done = CliRunner().invoke(app, [*argv[1:], "--format", "json"])
    assert done.exit_code == 1, done.output  # reproduces the failure
    again = [e for e in json.loads(done.output) if e["outcome"] == "fail"]
    assert [(e["defect"], e["summary"]) for e in again] == [(item.defect, item.summary)]
