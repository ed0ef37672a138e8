"""Batch review: executors (local, Ray), the resumable store, the results table, a killed driver."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reviewer.batch.executors import LocalExecutor, RayExecutor, Resources, Task, make_executor
from reviewer.batch.runner import discover, run_batch
from reviewer.batch.store import BatchRow, BatchStore, key_for, rows_csv, rows_json
from reviewer.batch.task import review_submission
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import UsageError
from tests.kernelfiles import KERNELS, expectations, materialize
from reviewer.core.limits import SandboxLimits

ONLY = ["builds", "correctness"]
# the cheapest real cases with different verdicts: builds pass + correctness fail, and builds fail
SET = (("syntax_error", "spine/syntax_error.py"), ("zeros_in_atol", "integrity_tiny/zeros_in_atol.py"))


def _set(root: Path, names=SET) -> Path:
    for name, file in names:
        materialize(KERNELS / file, root / name)
    return root


def _expected(name: str) -> dict[str, str]:
    file = dict(SET)[name]
    return {k: v for k, v in expectations(KERNELS / file).items() if k in ONLY}


def _config() -> ReviewConfig:
    return ReviewConfig(seed=7, signoff=False, only=ONLY,
                        limits=SandboxLimits(call_timeout_s=float(os.environ.get("KREVIEW_TEST_TIMEOUT", 60))))


# -- executors: retry once, then a reviewer failure (never a verdict) ---------------------------------------

_COUNTS: dict[str, int] = {}


def _flaky(key: str, fail_times: int) -> str:
    _COUNTS[key] = _COUNTS.get(key, 0) + 1
    if _COUNTS[key] <= fail_times:
        raise RuntimeError(f"{key} failed on attempt {_COUNTS[key]}")
    return f"{key} ok"


def test_local_executor_retries_once_then_reports_failure() -> None:
    tasks = [Task("once", _flaky, ("once", 1)), Task("always", _flaky, ("always", 5))]
    out = {o.task.key: o for o in LocalExecutor(1).run(tasks)}
    assert (out["once"].value, out["once"].error, out["once"].attempts) == ("once ok", None, 2)
    assert out["always"].value is None and out["always"].attempts == 2
    assert "always failed on attempt 2" in out["always"].error


def _slow_abs(x: int) -> int:
    time.sleep(0.5)  # still in flight when the other worker dies
    return abs(x)


def test_local_pool_survives_a_dying_worker() -> None:
    # os._exit kills its worker process (a crash, not an exception) and breaks the pool for every task
    # in flight: only the task that crashes on its own is charged, the others run again and succeed
    tasks = [Task("dies", os._exit, (3,)), Task("fine", _slow_abs, (-4,)), Task("later", _slow_abs, (5,))]
    out = {o.task.key: o for o in LocalExecutor(2).run(tasks)}
    assert (out["fine"].value, out["later"].value) == (4, 5)
    assert out["fine"].error is None and out["later"].error is None
    assert out["dies"].value is None and out["dies"].attempts == 2 and "BrokenProcessPool" in out["dies"].error


def test_ray_missing_falls_back_to_local_and_says_how(monkeypatch: pytest.MonkeyPatch) -> None:
    import reviewer.batch.executors as ex

    monkeypatch.setattr(ex, "ray_available", lambda: False)
    said: list[str] = []
    e = make_executor("ray", workers=2, warn=said.append)
    assert isinstance(e, LocalExecutor) and e.workers == 2
    assert "pip install 'kernel-reviewer[ray]'" in said[0]
    with pytest.raises(UsageError, match=r"kernel-reviewer\[ray\]"):
        make_executor("ray", address="auto")
    with pytest.raises(UsageError):
        make_executor("slurm")


# -- discovery, store, results table ----------------------------------------------------------------------

def test_discover_a_set_a_single_submission_and_a_list(tmp_path: Path) -> None:
    s = _set(tmp_path / "set")
    (s / "_notes").mkdir()
    assert [p.name for p in discover(s)] == ["syntax_error", "zeros_in_atol"]
    assert discover(s / "zeros_in_atol") == [(s / "zeros_in_atol").resolve()]
    lst = tmp_path / "list.txt"
    lst.write_text("# my batch\nset/zeros_in_atol\n\nset/syntax_error  # second\n")
    assert [p.name for p in discover(lst)] == ["zeros_in_atol", "syntax_error"]
    with pytest.raises(UsageError):
        discover(tmp_path / "nope")


def test_results_table_json_and_csv(tmp_path: Path) -> None:
    rows = [BatchRow(submission="/a", overall="reject", criteria={"builds": "pass", "correctness": "fail"},
                     seconds=3.5, node="n1", run_id="r1", executor="ray"),
            BatchRow(submission="/b,c", status="reviewer_failure", error="RayTaskError: boom\ntrace", attempts=2)]
    data = json.loads(rows_json(rows))["results"]
    assert {k: data[0][k] for k in ("submission", "overall", "criteria", "seconds", "node", "run_id")} == {
        "submission": "/a", "overall": "reject", "criteria": {"builds": "pass", "correctness": "fail"},
        "seconds": 3.5, "node": "n1", "run_id": "r1"}
    lines = rows_csv(rows).splitlines()
    assert lines[0].startswith("submission,overall,builds,correctness,seconds,node,run_id,status")
    assert lines[1].startswith("/a,reject,pass,fail,3.5,n1,r1,reviewed")
    assert lines[2].startswith('"/b,c",,,,,,,reviewer_failure,2,,RayTaskError: boom')
    store = BatchStore(tmp_path / "b")
    store.put(Path("/a"), rows[0])
    assert store.get(Path("/a")) == rows[0] and store.get(Path("/b")) is None
    assert key_for(Path("/x/k")) != key_for(Path("/y/k"))


def test_not_a_submission_is_recorded_not_reviewed(tmp_path: Path) -> None:
    junk = tmp_path / "set" / "notes"
    junk.mkdir(parents=True)
    (junk / "readme.py").write_text("x = 1\n")
    store = BatchStore(tmp_path / "b")
    [row] = run_batch(discover(tmp_path / "set"), store, _config(), LocalExecutor(1))
    assert row.status == "invalid_submission" and row.overall is None and row.error
    assert store.get(junk.resolve()) == row and not list(store.runs.iterdir())


def test_batch_cli_usage_errors(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from reviewer.cli import app

    s = _set(tmp_path / "set", SET[:1])
    runner = CliRunner()
    for args in (["--address", "auto"], ["--executor", "slurm"], ["--device", "tpu"], ["--cpus-per-review", "0"]):
        res = runner.invoke(app, ["batch", str(s), "--out", str(tmp_path / "b"), *args])
        assert res.exit_code == 2, (args, res.output)
    assert runner.invoke(app, ["batch", str(tmp_path / "missing")]).exit_code == 2


# -- Ray: a local 2-CPU cluster, the same verdicts as the local executor ------------------------------------

@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=128 * 2**20, log_to_driver=False,
             logging_level="WARNING")
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_and_local_give_the_same_verdicts(tmp_path: Path, ray_cluster) -> None:
    s = _set(tmp_path / "set")
    paths = discover(s)
    local = run_batch(paths, BatchStore(tmp_path / "local"), _config(), LocalExecutor(1))
    ray_ex = RayExecutor()
    assert not ray_ex._owns and "2 CPUs" in ray_ex.describe()
    store = BatchStore(tmp_path / "ray")
    remote = run_batch(paths, store, _config(), ray_ex, gpus_available=ray_ex.has_gpus())
    for lo, ra in zip(local, remote, strict=True):
        name = Path(lo.submission).name
        assert (lo.status, ra.status) == ("reviewed", "reviewed"), (lo.error, ra.error)
        assert {k: lo.criteria[k] for k in _expected(name)} == _expected(name), name
        assert (ra.criteria, ra.overall) == (lo.criteria, lo.overall), name
        assert ra.executor == "ray" and ra.node and ra.seconds > 0
        # the run came back from the node into the driver's store, and says where it now lives
        review = json.loads((store.runs / ra.run_id / "review.json").read_text())
        assert review["run_dir"] == str(store.runs / ra.run_id)
        assert {c["id"]: c["verdict"] for c in review["criteria"]} == ra.criteria
    # calibrate on the same executor: the run comes back into the calibration's own run store
    from reviewer.calibrate.evalset import EvalCase, Grades
    from reviewer.calibrate.runner import run_cases

    grades = Grades(criteria={"builds": "fail"}, overall="reject", defect="syntax", how_to_see="compile",
                    grader="test", date="2026-12-02")
    case = EvalCase("syntax_error", s / "syntax_error", grades)
    [cal] = run_cases([case], tmp_path / "cal", _config(), workers=1, force=False, baseline=False, executor=ray_ex)
    assert cal.error is None and cal.criteria["builds"] == "fail" and cal.node
    assert Path(cal.run_dir) == (tmp_path / "cal" / "runs" / cal.run_id).resolve()
    assert (Path(cal.run_dir) / "review.json").exists()
    # a task that fails on its node is retried once, then reported as a failure (not a verdict)
    bad = Task("gone", review_submission, (str(tmp_path / "not-here"), _config().model_dump_json(), True))
    [out] = list(ray_ex.run([bad]))
    assert out.value is None and out.attempts == 2 and "not a directory on node" in out.error
    # a review no node can hold is refused up front instead of waiting forever
    with pytest.raises(UsageError, match="no node of the cluster has"):
        list(ray_ex.run([Task("big", abs, (1,), Resources(num_gpus=1))]))


def _results(out: Path) -> dict[str, float]:
    d = out / "results"
    return {p.name: p.stat().st_mtime_ns for p in d.glob("*.json")} if d.exists() else {}


def test_killed_driver_resumes_where_it_stopped(tmp_path: Path, ray_cluster) -> None:
    """A driver (connected to the running cluster) is SIGKILLed after its first result; the rerun reviews
    only what is missing, and the table holds every submission with its expected verdicts."""
    s = _set(tmp_path / "set")  # syntax_error first (fast), then zeros_in_atol
    out = tmp_path / "batch"
    address = ray_cluster.get_runtime_context().gcs_address
    cmd = [sys.executable, "-m", "reviewer.cli", "batch", str(s), "--executor", "ray", "--address", address,
           "--out", str(out), "--seed", "7", "--only", "builds", "--only", "correctness", "--format", "json",
           "--cpus-per-review", "2"]  # one review at a time: the kill lands between the two
    drv = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 300
    while not _results(out) and drv.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    os.killpg(drv.pid, signal.SIGKILL)
    drv.wait()
    first = _results(out)
    assert len(first) == 1, (first, drv.stderr.read().decode()[-3000:])
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "1 to review, 1 already in the store" in again.stderr
    after = _results(out)
    assert len(after) == 2 and all(after[k] == v for k, v in first.items())  # the first is not redone
    rows = json.loads(again.stdout)["results"]
    assert [Path(r["submission"]).name for r in rows] == ["syntax_error", "zeros_in_atol"]
    for r in rows:
        assert r["status"] == "reviewed" and r["node"] and r["run_id"]
        want = _expected(Path(r["submission"]).name)
        assert {k: r["criteria"][k] for k in want} == want


def test_progress_reports_throughput_and_eta() -> None:
    import io

    from rich.console import Console

    from reviewer.batch.progress import BatchProgress

    now = [100.0]
    buf = io.StringIO()
    p = BatchProgress(Console(file=buf, width=200), "reviewing 5", clock=lambda: now[0])
    p.start(cached=1, todo=4)
    assert p.rate_eta() == (None, None)
    p.row(BatchRow(submission="/old", overall="accept"), True)  # cached: not work done by this driver
    now[0] += 30
    p.row(BatchRow(submission="/s/a", overall="reject", seconds=29.5, node="n1"), False)
    now[0] += 30
    p.row(BatchRow(submission="/s/b", status="reviewer_failure", error="x"), False)
    rate, eta = p.rate_eta()
    assert rate == pytest.approx(120.0) and eta == pytest.approx(60.0)  # 2 reviews in 60 s; 2 left
    lines = buf.getvalue().splitlines()
    assert lines[0] == "reviewing 5: 4 to review, 1 already in the store"
    assert lines[1] == "[2/5] /s/a: reject (29.5s, n1) · 120 reviews/h · ETA 1m30s"
    assert lines[2] == "[3/5] /s/b: reviewer_failure · 120 reviews/h · ETA 1m00s"
    # a directory that is no submission is recorded, never reviewed: no count, no rate (it read [1/0] and
    # 1442307 reviews/h before)
    p.row(BatchRow(submission="/s/x", status="invalid_submission", error="/s/x is not a directory\nmore"), False)
    assert buf.getvalue().splitlines()[3] == "not a submission: /s/x: /s/x is not a directory"
    assert (p.done, p.fresh) == (3, 2)


def test_a_cluster_that_refuses_the_first_connections_is_tried_again(monkeypatch) -> None:
    import types

    import reviewer.batch.executors as executors

    calls: list[dict] = []

    def fake(refusals: int) -> types.ModuleType:
        mod = types.ModuleType("ray")
        mod.is_initialized = lambda: False  # type: ignore[attr-defined]
        mod.shutdown = lambda: None  # type: ignore[attr-defined]

        def init(**kwargs):
            calls.append(kwargs)
            if len(calls) <= refusals:
                raise ConnectionError("Initialization failure from server")
        mod.init = init  # type: ignore[attr-defined]
        return mod

    slept: list[float] = []
    monkeypatch.setattr(executors.time, "sleep", slept.append)
    monkeypatch.setitem(sys.modules, "ray", fake(2))
    executors.RayExecutor("ray://127.0.0.1:10001")
    assert len(calls) == 3 and slept == list(executors.CONNECT_RETRY_S)
    calls.clear()
    slept.clear()
    monkeypatch.setitem(sys.modules, "ray", fake(5))
    with pytest.raises(UsageError, match="no Ray cluster at 'ray://127.0.0.1:10001'"):
        executors.RayExecutor("ray://127.0.0.1:10001")
    assert len(calls) == 3
