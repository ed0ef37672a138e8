"""Isolation: what a submission can see and do inside its sandbox child."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.conftest import DATA
from tests.kernelfiles import KERNELS
from tools.engine.harness.case import Case

DATA = DATA / "sandbox"


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
        assert pid_file.exists()  # it did start one
        marker = ("grandchild of " + str(pid_file.parent)).encode()

        def alive() -> list[str]:
            found = []
            for proc in Path("/proc").iterdir():
                try:
                    if proc.name.isdigit() and marker in (proc / "cmdline").read_bytes() \
                            and "zombie" not in (proc / "status").read_text():
                        found.append(proc.name)
                except OSError:
                    pass
            return found

        for _ in range(50):  # zombies are reaped by init shortly
            if not alive():
                break
            time.sleep(0.1)
        assert alive() == []
    finally:
        ctx.session.close()


def test_secrets_of_ancestor_processes_never_reach_the_review(tmp_path) -> None:
    """The scrubbed environment is not enough: a same-user child can read /proc/<ppid>/environ.
    The secret is in the *initial* environment of the reviewer process (and of its parent), which
    is what /proc shows, so the review runs in a fresh process started with it."""
    from tools.engine.sandbox.isolation import isolation

    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(DATA / "read_ancestor_environ.py", d / "submission.py")
    secret = "kreview-test-secret-6f1d2c9a"
    env = {**os.environ, "KREVIEW_TEST_API_KEY": secret}
    out = subprocess.run([sys.executable, "-m", "reviewer.cli", "review", str(d), "--only", "builds",
                          "--format", "json", "--runs-dir", str(tmp_path / "runs")],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    review = json.loads(out.stdout)
    (builds,) = [e for e in review["evidence"] if e["tool"] == "builds"]
    assert builds["outcome"] == "fail" and "found [" in builds["summary"]
    assert secret not in out.stdout
    assert secret not in "".join(p.read_text(errors="replace") for p in (tmp_path / "runs").rglob("*")
                                 if p.is_file() and p.suffix in (".json", ".md", ".txt", ".log"))
    if isolation().namespaces:
        # in its own PID namespace the child's parent is the namespace's first process, which is not
        # dumpable where it forks the restarts (tools/engine/sandbox/zygote.py): nothing to read, nothing above it
        assert "found []" in builds["summary"] or "found ['1: Permission denied']" in builds["summary"], \
            builds["summary"]


def test_a_flood_of_output_keeps_the_logs_and_the_run_directory_bounded(tmp_path, config) -> None:
    from tools.engine.sandbox.worker import LOG_CAP, LOG_KEEP

    ctx = _ctx(tmp_path, "log_flood", config)
    case = Case(id="c", seed=1)
    flood = 80_000 * 1000  # bytes per stream per call
    try:
        for _ in range(3):
            run = ctx.session.run_submission(case, ctx.session.reference(case))
            assert run.ok, run.call.failure_text()
            assert run.call.stdout_tail.endswith("x" * 999 + "\n")
        worker = ctx.session._workers["submission"]
        # trimmed before each call once past the cap: at most what was kept plus one call's flood
        for stream in ("stdout", "stderr"):
            assert LOG_CAP < worker.log_size(stream) <= LOG_KEEP + flood + 200
    finally:
        ctx.session.close()
    kept = sorted((tmp_path / "run" / "artifacts" / "sandbox").glob("submission-std*.log"))
    assert [p.name for p in kept] == ["submission-stderr.log", "submission-stdout.log"]
    for p in kept:
        head = p.read_bytes()[:200]
        assert p.stat().st_size <= LOG_KEEP + 200 and head.startswith(b"[kreview: first ")


def test_the_child_cannot_write_outside_its_own_directories(tmp_path, config, monkeypatch) -> None:
    import pytest

    # the reference child's copy of the task is one of the places tried: no kept answers stand in for it
    monkeypatch.setenv("KREVIEW_REFERENCE_CACHE", "off")

    import tools
    from tools.engine.sandbox.isolation import isolation

    if not isolation().readonly_fs:
        pytest.skip(f"no read-only filesystem here: {isolation().description}")
    target = Path(tools.__file__).parent / "kreview_sandbox_write_probe.py"
    ctx = _ctx(tmp_path, "write_outside", config)
    try:
        case = Case(id="c", seed=1)
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        assert run.ok, run.call.failure_text()
        # package: refused; own directory: allowed; the reference's copy of the task: refused
        assert run.outputs[0][0, :3].tolist() == [0.0, 1.0, 0.0]
        assert (ctx.session.root / "reference" / "src").is_dir()
        assert not target.exists()
    finally:
        ctx.session.close()
        target.unlink(missing_ok=True)


def test_the_child_has_no_network(tmp_path, config) -> None:
    import socket

    import pytest

    from tools.engine.sandbox.isolation import isolation

    if not isolation().namespaces:
        pytest.skip(f"no namespaces here: {isolation().description}")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        ctx = _ctx(tmp_path, "network_probe", config)
        (ctx.session.submission.root_path / "port.txt").write_text(str(server.getsockname()[1]))
        try:
            case = Case(id="c", seed=1)
            run = ctx.session.run_submission(case, ctx.session.reference(case))
            assert run.ok, run.call.failure_text()
            assert run.outputs[0][0, 0].item() == 0.0  # the host's loopback server is unreachable
        finally:
            ctx.session.close()


def test_alarm_lines_are_checked_records_and_anything_else_is_reported_as_unreadable() -> None:
    from tools.engine.sandbox.worker import _alarm_record

    good = b'{"event": "sys._getframe", "arg": "", "file": "/x/submission.py", "line": 7, "function": "f"}'
    assert _alarm_record(good) == {"event": "sys._getframe", "arg": "", "file": "/x/submission.py", "line": 7,
                                   "function": "f"}
    for bad in (b"not json", b"[1, 2]", b'{"event": 3, "file": "a", "line": 1}', b'{"event": "e", "line": "7"}'):
        assert _alarm_record(bad)["event"] == "unreadable alarm record", bad
