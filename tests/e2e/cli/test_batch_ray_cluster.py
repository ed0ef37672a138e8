"""`kreview batch --executor ray` against a cluster started the way a user starts one.

`ray start --head --num-cpus 2` runs in a subprocess with its own temporary directory (RAY_TMPDIR) and
its own ports, so `--address auto` finds this cluster and no other; then the same two-submission batch
goes through `--address auto` and through Ray Client (`ray://127.0.0.1:PORT`), and its verdicts must
equal the local executor's. The cluster is stopped whatever happens: every process it started shares
the process group of `ray start` (its own session), which is killed, then anything still running with
this cluster's temporary directory on its command line. (`ray stop` is not used: it kills every Ray
process of the user on the machine, including other clusters.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from reviewer.batch.executors import LocalExecutor
from reviewer.batch.runner import discover, run_batch
from reviewer.batch.store import BatchStore
from reviewer.core.config import ReviewConfig
from reviewer.core.limits import SandboxLimits
from tests.kernelfiles import KERNELS, expectations, materialize

ONLY = ["builds", "correctness"]
# builds fail; builds pass + correctness fail: two cheap real reviews with different verdicts
SET = (("syntax_error", "spine/syntax_error.py"), ("zeros_in_atol", "integrity_tiny/zeros_in_atol.py"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Cluster:
    env: dict[str, str]
    address: str  # host:port that `ray start` printed
    client_port: int
    tmp: Path


def _our_pids(tmp: Path) -> list[int]:
    """Processes whose command line names this cluster's temporary directory (nothing else's)."""
    mark = str(tmp).encode()
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and int(d.name) != os.getpid():
            try:
                if mark in (d / "cmdline").read_bytes():
                    found.append(int(d.name))
            except OSError:
                pass
    return found


def _stop(head: subprocess.Popen[bytes], tmp: Path) -> None:
    pgid = head.pid  # `ray start` led its own session; the daemons it started kept its process group
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass
        for pid in _our_pids(tmp):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and _our_pids(tmp):
            time.sleep(0.2)
        if not _our_pids(tmp):
            break
    shutil.rmtree(tmp, ignore_errors=True)


def _start_head(tmp: Path) -> tuple[subprocess.Popen[bytes], dict[str, str], int, Path]:
    """`ray start --head` as a user runs it, not waited for (the caller does other work meanwhile)."""
    ray_cli = Path(sys.executable).with_name("ray")
    # its own token (Ray 2.5x turns token authentication on), never the user's ~/.ray/auth_token
    env = {**os.environ, "RAY_TMPDIR": str(tmp), "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": uuid.uuid4().hex,
           "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    client_port = _free_port()
    cmd = [str(ray_cli), "start", "--head", "--num-cpus", "2", "--num-gpus", "0", "--port", str(_free_port()),
           "--ray-client-server-port", str(client_port), "--dashboard-agent-listen-port", str(_free_port()),
           "--include-dashboard", "false", "--disable-usage-stats"]
    log = tmp / "ray-start.log"  # a file, not a pipe: the daemons it leaves running could hold a pipe open
    with log.open("w") as fh:
        head = subprocess.Popen(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    return head, env, client_port, log


@contextmanager
def ray_head() -> Iterator[Callable[[], Cluster]]:
    """A running head node for the block; yields a function that waits until it is up. Stopped on exit,
    whatever happened."""
    pytest.importorskip("ray")
    if not Path(sys.executable).with_name("ray").exists():
        pytest.skip("the `ray` command is not installed next to this interpreter")
    # short: Ray's unix sockets live under it (108-byte limit on their paths)
    tmp = Path(tempfile.mkdtemp(prefix="kr-ray-", dir="/tmp"))
    head, env, client_port, log = _start_head(tmp)

    def ready() -> Cluster:
        head.wait(timeout=180)
        out = log.read_text()
        assert head.returncode == 0, out[-3000:]
        m = re.search(r"ray start --address='([^']+)'", out)
        assert m, out[-3000:]
        # `--address auto` reads the address of the last `ray start` from RAY_TMPDIR: ours
        assert (tmp / "ray" / "ray_current_cluster").read_text().strip() == m.group(1)
        return Cluster(env=env, address=m.group(1), client_port=client_port, tmp=tmp)

    try:
        yield ready
    finally:
        if head.poll() is None:
            head.kill()
        _stop(head, tmp)
        assert not _our_pids(tmp), "the Ray cluster outlived the test"


def _config() -> ReviewConfig:
    return ReviewConfig(seed=7, signoff=False, only=ONLY,
                        limits=SandboxLimits(call_timeout_s=float(os.environ.get("KREVIEW_TEST_TIMEOUT", 60))))


def _batch(cluster: Cluster, s: Path, out: Path, address: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "reviewer.cli", "batch", str(s), "--executor", "ray", "--address", address,
           "--out", str(out), "--runs-dir", str(out / "runs"), "--seed", "7", "--only", "builds", "--only", "correctness", "--format", "json"]
    return subprocess.Popen(cmd, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_batch_on_a_running_cluster_by_auto_and_by_ray_client(tmp_path: Path) -> None:
    s = tmp_path / "set"
    for name, file in SET:
        materialize(KERNELS / file, s / name)
    with ray_head() as ready:
        # the local executor's verdicts while the head node starts
        local = {Path(r.submission).name: r for r in
                 run_batch(discover(s), BatchStore(tmp_path / "local"), _config(), LocalExecutor(1))}
        for name, file in SET:
            want = {k: v for k, v in expectations(KERNELS / file).items() if k in ONLY}
            assert local[name].status == "reviewed", local[name].error
            assert {k: local[name].criteria[k] for k in want} == want, name
        cluster = ready()
        # two drivers at once on the one cluster: by `--address auto` and through Ray Client
        drivers = {how: _batch(cluster, s, tmp_path / how, address)
                   for how, address in (("auto", "auto"), ("client", f"ray://127.0.0.1:{cluster.client_port}"))}
        try:
            done = {how: d.communicate(timeout=300) for how, d in drivers.items()}
        finally:
            for d in drivers.values():
                if d.poll() is None:
                    d.kill()
    for how, (stdout, stderr) in done.items():
        assert drivers[how].returncode == 0, (how, stderr[-4000:])
        rows = {Path(r["submission"]).name: r for r in json.loads(stdout)["results"]}
        assert sorted(rows) == sorted(local)
        for name, row in rows.items():
            assert row["status"] == "reviewed" and row["executor"] == "ray", (how, row)
            assert (row["criteria"], row["overall"]) == (local[name].criteria, local[name].overall), (how, name)
            # the run came back to the driver's run store (--runs-dir: batch runs join the one store)
            assert (tmp_path / how / "runs" / row["run_id"] / "review.json").is_file(), (how, name)
