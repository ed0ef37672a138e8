"""Isolation: what a submission can see and do inside its sandbox child."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.kernelfiles import KERNELS
from tools.harness.case import Case

DATA = Path(__file__).parent / "data" / "sandbox"


def _ctx(tmp_path: Path, name: str, config, **limits):
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(DATA / f"{name}.py", d / "submission.py")
    cfg = config.model_copy(update={"limits": config.limits.model_copy(update=limits)})
    return make_tool_context(load_submission(d), cfg, tmp_path / "run", 7, detect_device("cpu"))


def test_child_sees_no_secrets_no_reference_output_and_private_dirs(tmp_path, config, monkeypatch) -> None:
    monkeypatch.setenv("KREVIEW_TEST_SECRET", "hunter2")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    ctx = _ctx(tmp_path, "env_probe", config)
    try:
        case = Case(id="c", seed=1)
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        assert run.ok, run.call.failure_text()
        flags = run.outputs[0][0, :3].tolist()
        assert flags == [0.0, 0.0, 0.0], "leaked secret / visible reference output / shared dirs"
    finally:
        ctx.session.close()


def test_forged_answer_on_the_result_pipe_is_a_protocol_violation(tmp_path, config) -> None:
    ctx = _ctx(tmp_path, "forge_channel", config)
    try:
        case = Case(id="c", seed=1)
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        assert not run.ok
        assert run.call.crash is not None and run.call.crash.kind == "protocol"
        # the next call gets a fresh child and still works
        again = ctx.session.run_submission(case, ctx.session.reference(case))
        assert again.call.crash is not None and again.call.crash.kind == "protocol"
    finally:
        ctx.session.close()


def test_timeout_kills_the_whole_process_group(tmp_path, config) -> None:
    ctx = _ctx(tmp_path, "spawn_sleeper", config, call_timeout_s=8.0)
    try:
        case = Case(id="c", seed=1)
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        assert run.call.crash is not None and run.call.crash.kind == "timeout"
        pid_file = ctx.session.root / "submission" / "grandchild.pid"
        pid = int(pid_file.read_text())
        with pytest.raises(ProcessLookupError):
            for _ in range(50):
                os.kill(pid, 0)  # still there? (zombies are reaped by init shortly)
                import time

                time.sleep(0.1)
                if Path(f"/proc/{pid}/status").exists() and "zombie" in Path(f"/proc/{pid}/status").read_text():
                    raise ProcessLookupError
    finally:
        ctx.session.close()
