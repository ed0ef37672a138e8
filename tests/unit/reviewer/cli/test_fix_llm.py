"""``kreview fix --llm openai``: the real openai client against a loopback chat server, a scripted rerun (no
sandbox). The rule's patch does not verify; the model's does and is written, named as the model's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import reviewer.fix.verify as verify
from reviewer.drafting.render import render_markdown
from reviewer.runs import create_run_dir, write_review
from tests.cli_runner import invoke
from tests.e2e.llm.support import FakeOpenAIServer, completion
from tests.kernelfiles import KERNELS
from tests.unit.reviewer.fix.stubs import ev, review

KERNEL = KERNELS / "softmax/bad_no_max_subtraction.py"
EXP = KERNEL.read_text().splitlines().index("    num = tl.exp(x)") + 1
FAILING = [ev("correctness-1", "correctness", "correctness", "pass"),
           ev("numerics-2", "numerics", "numerics", "fail", defect="large_magnitude", summary="exp overflow")]
PATCH = {"edits": [{"start_line": EXP, "end_line": EXP, "replacement": "    num = tl.exp(x - tl.max(x, axis=0))"}],
         "summary": "subtract the row max inside the exp"}


def test_fix_with_a_model_writes_its_verified_patch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "submission.py").write_text(KERNEL.read_text())
    runs = tmp_path / "runs"
    r = review(FAILING, root=str(sub.resolve()))
    write_review(create_run_dir(runs, r.run_id), r, render_markdown(r))

    def rerun(rev, root, config, file, patched, tools):
        ok = "tl.exp(x - tl.max(x, axis=0))" in patched  # the model's patch; the rule's inserts a line instead
        return review([e.model_copy(update={"outcome": "pass" if ok else e.outcome}) for e in FAILING]), ""

    monkeypatch.setattr(verify, "rerun", rerun)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("KREVIEW_CONFIG", raising=False)
    with FakeOpenAIServer(lambda body: (200, completion(json.dumps(PATCH), body["model"]))) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        out = tmp_path / "fix.patch"
        res = invoke("fix", str(sub), "--run", r.run_id, "--runs-dir", str(runs), "--out", str(out),
                     "--llm", "openai", "--model", "local-fixer")
    assert res.exit_code == 0, res.output
    assert "dropped max_subtraction (numerics, origin rule)" in res.output
    assert "origin llm:local-fixer" in res.output
    assert "+    num = tl.exp(x - tl.max(x, axis=0))" in out.read_text()
    (exchange,) = srv.exchanges  # one question: the one failed criterion the rule did not fix
    assert "numerics-2 [fail]" in exchange["request"]["body"]["messages"][-1]["content"]
    assert (sub / "submission.py").read_text() == KERNEL.read_text()
