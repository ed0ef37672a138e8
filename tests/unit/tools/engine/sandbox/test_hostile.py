"""Hostile submissions, one file per attack (tests/data/sandbox/hostile/): each is contained and the
review of it still ends in a clear verdict. Run as the reviewer's user (root in CI) through the real
sandbox session, and again as an unprivileged user (nobody) through the same bwrap command line."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.conftest import DATA
from tests.kernelfiles import KERNELS
from tools.engine.harness.case import Case
from tools.engine.sandbox.isolation import isolation

HOSTILE = DATA / "sandbox" / "hostile"
MARK = "KREVIEW-HOSTILE "

pytestmark = pytest.mark.skipif(not isolation().sandboxed, reason=f"no sandbox here: {isolation().why}")


def _attack(tmp_path: Path, config, name: str, targets: dict, pid_target: int | None = None) -> tuple[dict, object]:
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / f"{name}.py", d / "submission.py")
    (d / "targets.json").write_text(json.dumps(targets))
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    try:
        ctx.session.restart("submission", pid_target=pid_target)
        case = Case(id="c", seed=1)
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        # the attack's report comes back as the submission's error: a clear failure, never a crash
        assert run.call.answered and not run.call.ok, run.call.failure_text()
        text = run.call.error["message"]
        assert MARK in text, text
        return json.loads(text.split(MARK, 1)[1]), run
    finally:
        ctx.session.close()


def test_umount_proc_is_refused_and_no_secret_is_seen(tmp_path, config, monkeypatch) -> None:
    secret = "kreview-test-secret-" + uuid.uuid4().hex
    monkeypatch.setenv("KREVIEW_TEST_API_KEY", secret)
    got, _ = _attack(tmp_path, config, "umount_proc", {"secret": secret})
    assert got == {"escaped": False, "secret_seen": False}


def test_mount_setattr_is_refused_and_nothing_is_written_outside(tmp_path, config) -> None:
    import tools

    pkg = Path(tools.__file__).parent / f"kreview_hostile_{uuid.uuid4().hex[:8]}.py"
    store = tmp_path / "run" / "planted.txt"
    try:
        got, _ = _attack(tmp_path, config, "mount_setattr", {"write": [str(pkg), str(store), "/etc/kreview-planted"]})
        assert got == {"escaped": False, "wrote": []}
        assert not pkg.exists() and not store.exists() and not Path("/etc/kreview-planted").exists()
    finally:
        pkg.unlink(missing_ok=True)


def test_setns_and_unshare_are_refused_and_the_network_stays_unreachable(tmp_path, config) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        got, _ = _attack(tmp_path, config, "setns_network", {"port": server.getsockname()[1]})
    assert got == {"escaped": False, "connected": False}


def test_user_files_config_and_other_runs_are_not_there(tmp_path, config, monkeypatch) -> None:
    home = tmp_path / "home"
    cfg = home / ".config" / "kreview" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[llm]\napi_key = "sk-hostile-test-0123456789"\n')
    other = tmp_path / "runs" / "older-run" / "review.json"
    other.parent.mkdir(parents=True)
    other.write_text("{}")
    monkeypatch.setenv("HOME", str(home))
    got, _ = _attack(tmp_path, config, "read_user_files", {"files": [str(cfg), str(other)]})
    assert got == {"read": []}


def test_a_unix_socket_in_the_host_tmp_is_unreachable(tmp_path, config) -> None:
    path = f"/tmp/kreview-hostile-{uuid.uuid4().hex[:8]}.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen(1)
        try:
            got, _ = _attack(tmp_path, config, "unix_socket", {"socket": path})
        finally:
            os.unlink(path)
    assert got == {"connected": False}


def test_machine_wide_proc_files_cannot_be_opened_for_writing(tmp_path, config) -> None:
    """Under a reviewer run as root (CI) the child is the host's root: /proc/sys, sysrq-trigger and the
    like are bound read-only (tools/engine/sandbox/bwrap.py PROC_READONLY), and every child's own
    measurement says so before it is sent a request."""
    got, run = _attack(tmp_path, config, "proc_sys_write", {})
    assert got == {"opened": []}


def test_dev_shm_is_private_and_nothing_survives(tmp_path, config) -> None:
    name = f"kreview-hostile-{uuid.uuid4().hex[:8]}"
    got, _ = _attack(tmp_path, config, "dev_shm_persist", {"name": name})
    assert got == {"wrote": True}  # its own /dev/shm works (CUDA and multiprocessing need one)
    assert not (Path("/dev/shm") / name).exists()


def test_a_forked_restart_inherits_nothing_and_the_first_process_is_out_of_reach(tmp_path, config) -> None:
    """A restart on the CPU forks the sandbox's first process (tools/engine/sandbox/zygote.py): what the used
    child left in /tmp, /dev/shm or running is gone in the next, /proc/1's descriptors, memory and
    environment stay closed and its signals unsent, and the host folders bound under /tmp keep their files;
    once a child has changed what cannot be put back (the first process's limits, nice value, memory-kill
    score; a /dev entry; a SysV segment), the restart is a new sandbox instead."""
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "zygote_reach.py", d / "submission.py")
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    session = ctx.session
    try:
        case = Case(id="c", seed=1)
        ref = session.reference(case)
        reports, forks = [], []
        for _ in range(3):
            run = session.run_submission(case, ref)
            assert run.call.answered and not run.call.ok, run.call.failure_text()
            reports.append(json.loads(run.call.error["message"].split(MARK, 1)[1]))
            worker = session._workers["submission"]
            session.restart("submission")
            forks.append(worker.forked)
        planted, found, after = reports
        assert [r["call"] for r in reports] == [1, 2, 3] and all(r["reached"] == [] for r in reports)
        clean = planted["left"]  # before it planted anything: what a new sandbox's child finds
        assert clean["files"] == [] and clean["processes"] == [] and not clean["dev"] and not clean["sysv"]
        assert found["left"] == clean and found["pid"] != planted["pid"]
        # everything it tried in the first process was allowed by the kernel's same-user checks, or refused
        assert found["tampered"]["mqueue"] is False  # RLIMIT_MSGQUEUE 0
        assert after["left"] == clean
        # the first restart forked; the one after the tampering did not (a new sandbox: its first child again)
        assert forks[0] == 1 and forks[1] == 1 and after["pid"] == planted["pid"]
        # the role's own folders, bound from the host under /tmp, were not emptied with the sandbox's /tmp
        assert (worker.workdir / "src" / "submission.py").is_file()
        assert (worker.workdir / "home" / "zygote-reach-calls").read_text() == "3"
    finally:
        session.close()


def test_a_fork_flood_stops_at_the_process_limit(tmp_path, config) -> None:
    from tools.engine.sandbox.pids import PIDS_MAX

    got, _ = _attack(tmp_path, config, "fork_flood", {"max": 3000})
    assert 0 < got["forked"] <= PIDS_MAX


def test_unusual_socket_families_vsock_first_are_refused(tmp_path, config) -> None:
    got, _ = _attack(tmp_path, config, "socket_families", {})
    assert got == {"created": [], "plain": [1, 2, 10]}


def test_tmpfs_is_capped_and_the_sandbox_has_one_memory_budget(tmp_path, config) -> None:
    from tools.engine.sandbox import bwrap
    from tools.engine.sandbox.memcg import memory_limit_kind

    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "memory_budget.py", d / "submission.py")
    (d / "targets.json").write_text(json.dumps({"tmpfs_try_mb": bwrap.TMPFS_MB + 500}))
    cfg = config.model_copy(update={"limits": config.limits.model_copy(update={"memory_mb": 3072})})
    ctx = make_tool_context(load_submission(d), cfg, tmp_path / "run", 7, detect_device("cpu"))
    try:
        case = Case(id="c", seed=1)
        ref = ctx.session.reference(case)
        run = ctx.session.run_submission(case, ref)
        text = run.call.error["message"]
        got = json.loads(text.split(MARK, 1)[1])
        if bwrap.supports("--size"):
            assert all(0 < mb <= bwrap.TMPFS_MB for mb in got["tmpfs_mb"].values()), got
        if "per sandbox" not in memory_limit_kind():
            pytest.skip(f"no memory cgroup here: {memory_limit_kind()}")
        # six forks of 600 MiB: each under RLIMIT_AS, together over the 3 GiB budget
        targets = ctx.session.root / "submission" / "src" / "targets.json"
        targets.write_text(json.dumps({"tmpfs_try_mb": 1, "forks": 6, "fork_mb": 600}))
        run = ctx.session.run_submission(case, ref)
        assert not run.call.answered and run.call.crash is not None, run.call
        assert run.call.crash.kind == "oom" and "memory budget of 3072 MiB" in run.call.crash.message
    finally:
        ctx.session.close()


def _encodings(secret: str) -> list[str]:
    half = len(secret) // 2
    return [secret, base64.b64encode(secret.encode()).decode(), secret[::-1], secret[:half], secret[half:]]


def test_encoded_secrets_have_nothing_to_encode(tmp_path, config, monkeypatch) -> None:
    secret = "kreview-test-secret-" + uuid.uuid4().hex
    monkeypatch.setenv("KREVIEW_TEST_API_KEY", secret)
    got, run = _attack(tmp_path, config, "encoded_secret", {"name": "KREVIEW_TEST_API_KEY"})
    assert got == {"found": 0, "leak": []}
    text = json.dumps(run.call.model_dump()) + run.call.stdout_tail
    assert not [e for e in _encodings(secret) if e in text]


def test_names_swapped_for_links_in_the_childs_folders_are_never_followed_by_the_reviewer(tmp_path, config) -> None:
    host = tmp_path / "host"
    host.mkdir()
    write = host / "appended.txt"  # the old stdout.log: the child's output appended to a host file
    secret = "kreview-host-file-" + uuid.uuid4().hex
    read = host / "secret.txt"  # the old stderr.log: a host file read into the evidence
    read.write_text(secret)
    folder = host / "folder"  # the old .etc and transfer folders: files written into a host folder
    folder.mkdir()
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "parent_path_swap.py", d / "submission.py")
    (d / "targets.json").write_text(json.dumps({"write": str(write), "read": str(read), "folder": str(folder)}))
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    try:
        case = Case(id="c", seed=1)
        runs = [ctx.session.run_submission(case, ctx.session.reference(case)) for _ in range(2)]
    finally:
        ctx.session.close()
    for run in runs:  # the child's own crash, both times: a clear failure
        assert not run.call.answered and run.call.crash is not None and run.call.crash.kind == "exit", run.call
        assert "KREVIEW-PLANTED" in run.call.stdout_tail  # its output still comes back, from the held log
        assert secret not in json.dumps(run.call.model_dump())
    assert not write.exists()
    assert read.read_text() == secret
    assert list(folder.iterdir()) == []
    assert secret not in "".join(p.read_text(errors="replace") for p in (tmp_path / "run").rglob("*") if p.is_file())


def test_a_fifo_or_link_in_place_of_an_output_file_is_a_clear_failure_not_a_hang(tmp_path, config) -> None:
    import time

    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(DATA / "sandbox" / "env_probe.py", d / "submission.py")
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    host = tmp_path / "host-secret.pt"
    host.write_bytes(b"host")
    try:
        case = Case(id="c", seed=1)
        ref = ctx.session.reference(case)
        run = ctx.session.run_submission(case, ref)
        assert run.ok, run.call.failure_text()
        # what a thread the submission left running can do between its answer and the parent's read
        out = run.outputs_path
        out.unlink()
        os.mkfifo(out)
        t0 = time.monotonic()
        checked = ctx.session.task_check(case, ref, run)
        assert checked is not None and checked.answered and not checked.ok
        assert "not a regular file" in checked.failure_text()
        with pytest.raises(OSError):
            ctx.session.load_tensors(out)
        out.unlink()
        out.symlink_to(host)
        with pytest.raises(OSError):
            ctx.session.load_tensors(out)
        assert time.monotonic() - t0 < 30
    finally:
        ctx.session.close()
    assert host.read_bytes() == b"host"


def test_rebinding_the_childs_reply_function_does_not_change_the_answers(tmp_path, config) -> None:
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "forge_reply.py", d / "submission.py")
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    try:
        case = Case(id="c", seed=1)
        load = ctx.session.load_submission()
        assert load.ok, load.failure_text()
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        assert run.call.answered and run.call.ok, run.call.failure_text()
        assert "forged" not in json.dumps(run.call.result)
        assert run.call.result  # the harness's own answer came through
    finally:
        ctx.session.close()


# -- the same attacks as an unprivileged user ------------------------------------------------------

_DRIVER = r'''
import json, os, resource, subprocess, sys
from pathlib import Path
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tools.engine.sandbox import bwrap
from tools.engine.sandbox.measure import problems
from tools.engine.sandbox.pids import PIDS_MAX, user_task_count
from tools.engine.sandbox.seccomp_filter import filter_fd

here = os.path.dirname(os.path.abspath(__file__))
out = {}
for name, targets in json.loads(sys.argv[1]).items():
    own = os.path.join(here, "run-" + name)
    os.makedirs(own)
    script = os.path.join(here, "tools", "engine", "sandbox", "measure.py") if name == "measure" else \
        os.path.join(here, "attacks", name + ".py")
    fd = filter_fd()
    cmd = bwrap.command(writable=[own], chdir=own, etc_dir=bwrap.passwd_file(Path(own) / ".etc"), seccomp_fd=fd,
                        gpu=None, readonly=[Path(here, "attacks")])
    nproc = user_task_count() + PIDS_MAX
    if name == "measure":
        # (``here`` itself sits in the child's private /tmp: writable there, and gone with it)
        targets = {"write": ["/", "/usr", os.path.join(here, "tools"), os.path.join(here, "attacks")], "absent": ["/root", "/run", "/home"], "own": [own]}
    res = subprocess.run([*cmd, sys.executable, "-I", script, json.dumps(targets)], capture_output=True, text=True,
                         pass_fds=(fd,), timeout=120, env={"PATH": "/usr/bin:/bin"},
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc)))
    os.close(fd)
    line = (res.stdout.strip().splitlines() or [""])[-1]
    got = json.loads(line.split("KREVIEW-HOSTILE ", 1)[-1]) if line else {"error": res.stderr[-500:]}
    if name == "measure":
        got = {"problems": problems(got), "uid": got.get("uid")}
    out[name] = got
print(json.dumps(out))
'''


def test_the_attacks_are_contained_for_an_unprivileged_user_too(tmp_path_factory) -> None:
    """As ``nobody`` with the system Python (the test environment's own Python may sit in a directory
    nobody cannot read): the same bwrap command line, seccomp filter and RLIMIT_NPROC."""
    python = "/usr/bin/python3"
    if os.geteuid() != 0 or shutil.which("setpriv") is None or not Path(python).exists():
        pytest.skip("needs root (to switch to nobody), setpriv and a system python3")
    import pyseccomp

    import tools.engine.sandbox as pkg
    from tools.engine.sandbox import bwrap

    base = Path(f"/tmp/kreview-unpriv-{uuid.uuid4().hex[:8]}")
    try:
        (base / "tools" / "engine" / "sandbox").mkdir(parents=True)
        (base / "attacks").mkdir()
        for package in ("tools", "tools/engine", "tools/engine/sandbox"):
            (base / package / "__init__.py").write_text("")
        for name in ("bwrap.py", "gpu.py", "libraries.py", "measure.py", "seccomp_filter.py", "pids.py",
                     "own_modules.py"):
            shutil.copy(Path(pkg.__file__).with_name(name), base / "tools" / "engine" / "sandbox" / name)
        shutil.copy(pyseccomp.__file__, base / "pyseccomp.py")
        for f in HOSTILE.glob("*.py"):
            shutil.copy(f, base / "attacks" / f.name)
        (base / "driver.py").write_text(_DRIVER)
        secret_file = base / "secret-config.toml"
        secret_file.write_text('api_key = "sk-hostile"\n')
        sock_path = str(base / "agent.sock")
        for p in [base, *base.rglob("*")]:
            os.chown(p, 65534, 65534)
        os.chmod(secret_file, 0o600)
        shm = f"kreview-unpriv-{uuid.uuid4().hex[:8]}"
        plan = {"measure": {}, "umount_proc": {"secret": "x" * 20}, "mount_setattr": {"write": [str(base / "tools" / "planted.py"),
                                                                                      str(base / "attacks" / "planted.py")]},
                "setns_network": {}, "read_user_files": {"files": [str(secret_file)]},
                "unix_socket": {"socket": sock_path}, "dev_shm_persist": {"name": shm}, "fork_flood": {"max": 3000},
                "socket_families": {}, "memory_budget": {"tmpfs_try_mb": 2600}}
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(sock_path)
            server.listen(1)
            os.chmod(sock_path, 0o777)
            out = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python,
                                  str(base / "driver.py"), json.dumps(plan)], capture_output=True, text=True,
                                 timeout=300, check=False, env={"PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr[-3000:]
        got = json.loads(out.stdout.strip().splitlines()[-1])
        assert got["measure"] == {"problems": [], "uid": 65534}
        assert got["umount_proc"] == {"escaped": False, "secret_seen": False}
        assert got["mount_setattr"] == {"escaped": False, "wrote": []}
        assert got["setns_network"] == {"escaped": False, "connected": False}
        assert got["read_user_files"] == {"read": []}
        assert got["unix_socket"] == {"connected": False}
        assert got["dev_shm_persist"] == {"wrote": True} and not Path("/dev/shm", shm).exists()
        assert 0 < got["fork_flood"]["forked"] <= 512
        assert got["socket_families"] == {"created": [], "plain": [1, 2, 10]}
        if bwrap.supports("--size"):
            assert all(0 < mb <= bwrap.TMPFS_MB for mb in got["memory_budget"]["tmpfs_mb"].values())
        assert not (base / "tools" / "planted.py").exists() and not (base / "attacks" / "planted.py").exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_markdown_html_and_state_marker_injection_render_inert(tmp_path, config) -> None:
    from reviewer.api import start_review
    from reviewer.drafting.render import render_markdown
    from reviewer.pr.render import read_state, state_marker

    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "markdown_injection.py", d / "submission.py")
    cfg = config.model_copy(update={"only": ["builds"], "signoff": False, "runs_dir": tmp_path / "runs"})
    review = start_review(d, cfg)
    assert review.overall == "reject"
    assert any(e.outcome == "fail" and "boom" in e.summary for e in review.evidence)
    md = render_markdown(review)
    lines = md.splitlines()
    assert [ln for ln in lines if ln.startswith("#") and not ln.startswith("##")] == [lines[0]]
    assert "REJECT" in lines[0]
    for bad in ("<img", "<details>", "<!--", "](https://", "@maintainers", "\x1b", "https://evil", "www.evil"):
        assert bad not in md, bad
    assert not [ln for ln in lines if ln.startswith("| correctness | pass")]
    body = md + "\n" + state_marker({"run_id": review.run_id, "status": "awaiting_signoff"})
    assert read_state(body) == {"run_id": review.run_id, "status": "awaiting_signoff"}


def test_sigterm_stops_the_children_removes_the_folders_and_leaves_a_run_show_explains(tmp_path) -> None:
    import signal
    import time

    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(DATA / "sandbox" / "spawn_sleeper.py", d / "submission.py")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    runs = tmp_path / "runs"
    env = {**os.environ, "TMPDIR": str(tmp), "KREVIEW_RUNS_DIR": str(runs)}
    proc = subprocess.Popen([sys.executable, "-m", "reviewer.cli", "review", str(d), "--only", "correctness",
                             "--format", "json", "--no-signoff"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while not list(tmp.glob("tmp*/submission/grandchild.pid")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-2000:]
            time.sleep(0.5)
        marker = ("grandchild of " + str(next(tmp.glob("tmp*/submission")))).encode()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err[-2000:]
    assert not list(tmp.glob("tmp*")), "sandbox folders left behind"
    assert not list((tmp / f"kreview-roots-{os.geteuid()}").iterdir()), "sandbox folders still registered"
    alive = []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and marker in (p / "cmdline").read_bytes():
                alive.append(p.name)
        except OSError:
            pass
    assert alive == []
    shown = subprocess.run([sys.executable, "-m", "reviewer.cli", "show", next(runs.iterdir()).name, "--format",
                            "json"], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert shown.returncode == 0, shown.stderr[-2000:]
    review = json.loads(shown.stdout)
    assert review["status"] == "failed" and "SIGTERM" in review["overall_reason"]


def test_many_files_each_under_the_file_limit_are_stopped_by_the_disk_budget(tmp_path, config) -> None:
    from tools.engine.outcomes import classify_failure

    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "disk_fill.py", d / "submission.py")
    (d / "targets.json").write_text(json.dumps({"files": 8, "file_mb": 16}))
    limits = config.limits.model_copy(update={"disk_mb": 64, "file_size_mb": 16})
    ctx = make_tool_context(load_submission(d), config.model_copy(update={"limits": limits}), tmp_path / "run", 7,
                            detect_device("cpu"))
    try:
        case = Case(id="c", seed=1)
        ref = ctx.session.reference(case)
        # the staged inputs and the reference's outputs are the parent's: not charged to the child
        assert ctx.session.owned
        run = ctx.session.run_submission(case, ref)
        assert not run.call.answered and run.call.crash is not None, run.call
        assert run.call.crash.kind == "disk" and "disk budget of 64 MiB" in run.call.crash.message
        got = classify_failure(run.call, interpreted=True, input_numel=1, on_cpu=True, stage="the call")
        assert (got.outcome, got.defect) == ("fail", "disk_budget")
        # within the budget (4 files of 8 MiB) the call answers as usual
        targets = ctx.session.root / "submission" / "src" / "targets.json"
        for f in (ctx.session.root / "submission").glob("fill-*.bin"):
            f.unlink()
        targets.write_text(json.dumps({"files": 4, "file_mb": 8}))
        run = ctx.session.run_submission(case, ref)
        assert run.call.answered and json.loads(run.call.error["message"].split(MARK, 1)[1]) == {"written_mb": 32}
    finally:
        ctx.session.close()


def test_nothing_the_child_can_read_tells_it_is_under_review(tmp_path, config) -> None:
    """Issue 28, item 3: the reviewer's variables and modules, a name of the reviewer or the sandbox in any
    path, variable, command line, open file, /etc/passwd or pid 1's command line, Python's start-up
    flags, the account, and the pid (here a child whose pid was raised to 4321, as the many-calls probe's
    second child is)."""
    installed = sorted({sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix})
    got, _ = _attack(tmp_path, config, "review_tells", {"installed": installed}, pid_target=4321)
    assert got == {"variables": [], "modules": [], "named": {}, "python_variables": [], "flags": [],
                   "odd_account": False, "user_site": False, "path_surprises": [], "pid": 4321,
                   "pid1_is_bwrap": False}


def test_folders_nested_past_the_recursion_limit_are_removed_and_the_next_review_starts(
        tmp_path, config, monkeypatch) -> None:
    from tools.engine import session as session_mod

    depth = sys.getrecursionlimit() + 500  # past what shutil.rmtree's recursion survives
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "deep_folders.py", d / "submission.py")
    (d / "targets.json").write_text(json.dumps({"depth": depth}))
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    root = ctx.session.root
    try:
        case = Case(id="c", seed=1)
        ref = ctx.session.reference(case)
        run = ctx.session.run_submission(case, ref)
        assert run.call.answered and not run.call.ok, run.call.failure_text()
        made = json.loads(run.call.error["message"].split(MARK, 1)[1])["nested"]
        assert made == {"submission": depth, "submission/src": depth, "xfer-submission": depth}
        # a new child of the role gets its sources copied afresh over what the last one left there
        src = root / "submission" / "src"
        session_mod._copy_tree(d, src)
        assert sorted(p.name for p in src.iterdir()) == ["reference.py", "submission.py", "targets.json"]
    finally:
        ctx.session.close()  # shutil.rmtree raised RecursionError here: the review crashed
    assert not root.exists()
    # a folder left by a reviewer killed outright is swept at the next start, whatever its depth
    monkeypatch.setattr(session_mod.tempfile, "gettempdir", lambda: str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"kreview-sandbox-{dead.pid}-x"
    (stale / "submission").mkdir(parents=True)
    _nest_deep(stale / "submission", depth)
    try:
        session_mod._remove_stale_roots()
        assert not stale.exists()
    finally:  # pytest's own clean-up of old tmp_path folders uses shutil.rmtree
        session_mod.safe_files.remove_tree(stale)


def _nest_deep(folder: Path, depth: int) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        nxt = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.close(fd)


def test_integrity_outputs_planted_as_fifos_by_the_reference_child_are_not_opened(tmp_path, config) -> None:
    """tests/data/sandbox/hostile/reference_fifo_outputs.py plants these in its transfer folder: the
    integrity probe opened them by path and the review hung."""
    import time

    import tools.integrity.runtime_tool as runtime_tool
    from tools.engine.registry import tools

    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(KERNELS / "spine" / "good_triton.py", d / "submission.py")
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    try:
        folder = ctx.session.xfer / "case" / "integrity-1"
        folder.mkdir(parents=True)
        os.mkfifo(folder / "call-1.pt")
        (folder / "call-2.pt").symlink_to(d / "submission.py")
        t0 = time.monotonic()
        load = tools()["integrity_runtime"]._load
        unread = runtime_tool._UNREAD  # not a tensor: the probe is then unverified
        assert load(ctx.session, folder / "call-1.pt") is unread and load(ctx.session, folder / "call-2.pt") is unread
        assert load(ctx.session, folder / "missing.pt") is unread
        assert time.monotonic() - t0 < 5
    finally:
        ctx.session.close()


def test_a_zip_bomb_output_file_is_refused_before_it_is_inflated(tmp_path, config) -> None:
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "zip_bomb_output.py", d / "submission.py")
    (d / "targets.json").write_text(json.dumps({"mib": 64}))
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    try:
        case = Case(id="c", seed=1)
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        # the child answered; its output file (some 64 KB on disk, 64 MiB inflated) is refused unread
        assert run.call.answered and not run.call.ok and run.outputs is None
        assert "output file unreadable" in run.call.error["message"]
        assert "compressed member" in run.call.error["message"], run.call.error
    finally:
        ctx.session.close()


def test_an_answer_nested_past_the_json_decoders_depth_is_a_protocol_violation(tmp_path, config) -> None:
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "deep_json_answer.py", d / "submission.py")
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    try:
        case = Case(id="c", seed=1)
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        assert not run.call.answered and run.call.crash is not None
        assert run.call.crash.kind == "protocol" and "not JSON" in run.call.crash.message
    finally:
        ctx.session.close()


def test_integrity_probes_whose_outputs_are_withheld_are_unverified_not_passed(tmp_path, config, reviews) -> None:
    """An identity-keyed cache that links the probes' output names to /dev/null was accepted: the checks
    that compare those outputs read their absence as "info" or a pass."""
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "withheld_probe_outputs.py", d / "submission.py")
    review = reviews.review(d, config.model_copy(update={"only": ["builds", "integrity_runtime"], "seeds": 1}))
    got = {e.check.split(":")[0]: (e.outcome, e.defect) for e in review.evidence if e.tool == "integrity_runtime"}
    withheld = ("unverified", "probe_outputs_unreadable")
    assert got["three calls of the submission under the integrity probe"] == withheld, got
    assert got["many_calls"] == withheld, got
    assert "output_tracks_inputs" not in got  # never a pass on outputs it could not read
    integrity = next(c for c in review.criteria if c.id == "integrity")
    assert integrity.verdict != "pass" and review.overall != "accept"


def _forged_reply_review(tmp_path, config, reviews, name: str, marker: str):
    """A reply-forging hostile file reviewed with builds and integrity_runtime: its review, the
    harness_untouched items (each must fail as tampering, and integrity with them) and the file's line
    holding ``marker``, the line the alarm must name."""
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / name, d / "submission.py")
    review = reviews.review(d, config.model_copy(update={"only": ["builds", "integrity_runtime"], "seeds": 1}))
    harness = [e for e in review.evidence
               if e.tool == "integrity_runtime" and e.check.startswith("harness_untouched")]
    assert harness and all(e.outcome == "fail" and e.defect == "harness_tampering" for e in harness), harness
    integrity = next(c for c in review.criteria if c.id == "integrity")
    assert integrity.verdict == "fail" and review.overall != "accept"
    line = next(n for n, text in enumerate((HOSTILE / name).read_text().splitlines(), 1) if marker in text)
    return review, harness, line


def test_a_reply_rewritten_from_a_frame_is_caught_by_the_alarm_written_before_the_frame(
        tmp_path, config, reviews) -> None:
    """forge_reply_cell.py takes a frame at import and rewrites every later reply (torch operators and the
    guard's records stripped): it was accepted. The alarm pipe got the frame access before the frame was
    handed out, so integrity fails on it, names the line, and says the probe's reply was rewritten."""
    _, harness, line = _forged_reply_review(tmp_path, config, reviews, "forge_reply_cell.py",
                                            "getattr(exc.__traceback__, _T)")
    summary = harness[0].summary
    assert f"submission.py:{line}" in summary and "tb_frame" in summary, summary
    assert "reported out of band when it happened" in summary and "its reply was rewritten" in summary, summary
    assert any(a.get("event") == "object.__getattr__" and a.get("line") == line
               for a in harness[0].result.get("alarms", [])), harness[0].result


def test_closing_the_alarm_pipe_is_itself_an_alarm(tmp_path, config) -> None:
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(HOSTILE / "close_alarm_pipe.py", d / "submission.py")
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    try:
        load = ctx.session.load_submission()
        assert load.answered and load.ok, load.failure_text()
        assert [a["event"] for a in load.alarms] == ["alarm channel closed"], load.alarms
        assert [a["event"] for a in ctx.session.submission_alarms()] == ["alarm channel closed"]
    finally:
        ctx.session.close()


def test_a_reply_rewritten_from_a_signal_handlers_frame_is_caught_by_the_alarm_written_at_installation(
        tmp_path, config, reviews) -> None:
    """signal_frame_forge.py is forge_reply_cell.py with the frame handed to its SIGUSR1 handler: no audit
    event at installation or delivery, so the alarm pipe stayed empty and the forged replies passed. The
    child's ``_signal.signal`` now writes the alarm before the handler is installed (before any frame can
    be handed to it), so integrity fails on it and names the installing line."""
    _, harness, line = _forged_reply_review(tmp_path, config, reviews, "signal_frame_forge.py",
                                            "# the line the alarm names")
    summary = harness[0].summary
    assert f"submission.py:{line}" in summary and "signal handler" in summary, summary
    assert "reported out of band when it happened" in summary, summary
    assert any(a.get("event") == "signal.signal" and a.get("arg") == "SIGUSR1" and a.get("line") == line
               for a in harness[0].result.get("alarms", [])), harness[0].result
