"""Early launch of sandbox children: the reference and submission children start together, a launched
child is waited for (and its isolation checked) before its first request, and a launch that dies is a
startup crash, never a hang or a pass."""

from __future__ import annotations

import select
import shutil
import time
from pathlib import Path

import pytest
import torch

from reviewer.core.limits import SandboxLimits
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.kernelfiles import KERNELS
from tools.engine.harness.case import Case
from tools.engine.sandbox import SandboxWorker
from tools.engine.sandbox.worker import FORKS_ENV


def _spine_ctx(tmp_path: Path, config):
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    shutil.copy(KERNELS / "spine" / "good_triton.py", d / "submission.py")
    return make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))


def test_loading_the_submission_launches_the_reference_child_alongside(tmp_path, config, monkeypatch) -> None:
    # no kept reference answers: the reference child is the subject (tests/unit/tools/engine/test_reference_store.py)
    monkeypatch.setenv("KREVIEW_REFERENCE_CACHE", "off")
    ctx = _spine_ctx(tmp_path, config)
    session = ctx.session
    try:
        load = session.load_submission()
        assert load.answered and load.ok, load.failure_text()
        ref_worker = session._workers["reference"]
        # started while the submission child loaded, not waited for yet
        assert ref_worker.starts == 1 and ref_worker.alive and ref_worker.launched
        case = Case(id="c", seed=1)
        ref = session.reference(case)
        assert ref.ok, ref.call.failure_text()
        assert ref_worker.starts == 1 and not ref_worker.launched  # the launched child served it
        assert ref_worker.isolation or not ref_worker.ready_info.get("isolation")
        run = session.run_submission(case, ref)
        assert run.ok, run.call.failure_text()
        assert session._workers["submission"].starts == 1
        # a restart after a crash relaunches only the role that crashed
        session.restart("submission")
        again = session.run_submission(case, ref)
        assert again.ok and session._workers["submission"].starts == 2 and ref_worker.starts == 1
    finally:
        session.close()


def test_a_partner_that_cannot_be_launched_fails_where_it_is_used(tmp_path, config, monkeypatch) -> None:
    """The early launch of the other role never fails the role asked for: the error comes back when
    (and where) the other role is used, as it did before children were launched early."""
    launch = SandboxWorker.launch

    def broken(self) -> None:
        if self.name == "reference":
            raise OSError("no room for the reference child")
        launch(self)

    monkeypatch.setattr(SandboxWorker, "launch", broken)
    # no kept reference answers: another test's answer for this case would leave the reference child unused
    # (an order-dependent pass: it failed when run as an unprivileged user, whose workers ran in another order)
    monkeypatch.setenv("KREVIEW_REFERENCE_CACHE", "off")
    ctx = _spine_ctx(tmp_path, config)
    try:
        load = ctx.session.load_submission()
        assert load.answered and load.ok, load.failure_text()
        with pytest.raises(OSError, match="no room for the reference child"):
            ctx.session.reference(Case(id="c", seed=1))
    finally:
        ctx.session.close()


def test_a_launched_child_that_dies_before_it_is_ready_is_a_startup_crash(tmp_path) -> None:
    worker = SandboxWorker("dies", tmp_path / "w", SandboxLimits(startup_timeout_s=30.0),
                           preludes=["tools.engine.no_such_prelude_module"])
    try:
        worker.launch()
        res = worker.call("load", {})
        assert not res.ok and not worker.launched
        assert res.error is not None and res.error["type"] == "ModuleNotFoundError", res
    finally:
        worker.close()


def test_the_startup_timeout_is_not_charged_with_the_time_before_the_parent_waits(tmp_path) -> None:
    """A child launched early and waited for later gets its whole startup timeout from the wait."""
    worker = SandboxWorker("late", tmp_path / "w", SandboxLimits(startup_timeout_s=0.5))
    try:
        worker.launch()
        assert worker._resp_r is not None
        readable, _, _ = select.select([worker._resp_r], [], [], 120)  # the child is ready (or dead)
        assert readable
        time.sleep(1.0)  # the parent was busy elsewhere for longer than the startup timeout
        ready = worker.wait_ready()
        assert ready.answered and ready.ok, ready.failure_text()
        assert worker.call("load", {}).answered  # and it serves requests (this one is malformed)
    finally:
        worker.close()


def test_a_restart_puts_a_spare_in_place_and_keeps_a_child_that_ran_nothing(tmp_path, config, monkeypatch) -> None:
    """``stand_by`` starts a spare while the used child works; ``restart`` swaps it in (no wait for an
    interpreter); a restart of a child that has run nothing keeps it; spares never used stop at close."""
    monkeypatch.setenv(FORKS_ENV, "off")  # spares: where a restart cannot fork (a GPU, a wrapper)
    ctx = _spine_ctx(tmp_path, config)
    session = ctx.session
    try:
        case = Case(id="c", seed=1)
        ref = session.reference(case)
        first = session.run_submission(case, ref)
        assert first.ok, first.call.failure_text()
        used = session._workers["submission"]
        assert used.requests >= 2 and not used.pristine  # load, run
        session.stand_by("submission")
        session.stand_by("submission")
        spare, other = session._spares["submission"]
        # a child with a raised pid stands by once, however often it is asked for (the integrity tool asks
        # at its start and again at the probe); a restart with that target puts it in place
        session.stand_by("submission", pid_target=5000)
        session.stand_by("submission", pid_target=5000)
        raised = session._spares["submission"][2]
        assert len(session._spares["submission"]) == 3 and raised.pid_target == 5000
        session._spares["submission"].remove(raised)
        raised.release()
        assert spare.launched and spare.pristine and spare is not used
        session.restart("submission")
        assert session._workers["submission"] is spare and not used.alive
        assert session._retired == [("submission", used)]
        session.restart("submission")  # the spare has run nothing: it stays, the second spare waits
        assert session._workers["submission"] is spare and session._spares["submission"] == [other]
        again = session.run_submission(case, ref)
        assert again.ok, again.call.failure_text()
        assert spare.starts == 1 and used.starts == 1  # served by the spare's one start
        session.restart("submission")  # used again: the second spare takes its place
        assert session._workers["submission"] is other and session._spares["submission"] == []
        assert session.run_submission(case, ref).ok
        session.restart("submission")  # no spare left: the child stops, and stand_by starts it again
        assert not other.alive and not other.launched
        session.stand_by("submission")
        assert session._workers["submission"] is other and other.launched and other.pristine
        assert session._spares["submission"] == []
    finally:
        session.close()
    assert not other.alive and other.proc is None and session._spares == {} and session._retired == []


def test_once_the_submission_runs_later_tools_start_their_children_ahead(tmp_path, config, monkeypatch) -> None:
    """The graph's ``_prepare_ahead``: a spare for each fresh-child tool still to come, the compile
    child for resources; a tool that is not coming prepares nothing."""
    monkeypatch.setenv(FORKS_ENV, "off")  # spares: where a restart cannot fork (a GPU, a wrapper)
    from reviewer.graph.nodes import _prepare_ahead
    from tools.resources import _PreparedCompiler

    ctx = _spine_ctx(tmp_path, config)
    try:
        assert ctx.session.load_submission().ok
        _prepare_ahead(ctx, ["integrity_runtime", "resources", "correctness"])
        assert len(ctx.session._spares["submission"]) == 1
        prepared = ctx.facts.get(_PreparedCompiler)
        assert prepared is not None and prepared.compiler.worker.launched and not prepared.taken
        prepared.compiler.close()
    finally:
        ctx.session.close()



def test_the_second_many_calls_child_stands_by_once_generality_ends(tmp_path, config) -> None:
    """``_start_ahead``: integrity_runtime's ``ahead`` (the many-calls probe's second child, its pid raised)
    runs when the tool its ``ahead_after`` names ends, not at another tool's end; a second call, as
    ``_run`` makes, starts nothing more."""
    from reviewer.graph.nodes import _start_ahead
    from tools.integrity.runtime_tool import IntegrityRuntimeTool

    ctx = _spine_ctx(tmp_path, config)
    try:
        assert ctx.session.load_submission().ok
        _start_ahead(ctx, "numerics", ["integrity_runtime"])
        assert not ctx.session._spares.get("submission")
        _start_ahead(ctx, "generality", ["integrity_runtime"])
        spares = ctx.session._spares["submission"]
        assert [s.pid_target for s in spares] == [IntegrityRuntimeTool._second_pid(ctx)]
        assert spares[0].launched
        IntegrityRuntimeTool().ahead(ctx)
        assert len(ctx.session._spares["submission"]) == 1
    finally:
        ctx.session.close()


def test_the_memcheck_spare_starts_when_generality_ends_where_the_search_runs(tmp_path, config, monkeypatch) -> None:
    """memcheck's spare submission child: with the generality search in the plan it starts when the search
    ends (``ahead``), not beside it (``prepare``); without the search, at ``prepare`` as before."""
    monkeypatch.setenv(FORKS_ENV, "off")  # spares: where a restart cannot fork (a GPU, a wrapper)
    from reviewer.graph.nodes import _prepare_ahead, _start_ahead
    from tools.engine.review_plan import ReviewPlan

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    searched, alone = _spine_ctx(tmp_path / "a", config), _spine_ctx(tmp_path / "b", config)
    try:
        searched.plan = ReviewPlan(tools=["builds", "generality", "memcheck"])
        alone.plan = ReviewPlan(tools=["builds", "memcheck"])
        for ctx in (searched, alone):
            assert ctx.session.load_submission().ok
            _prepare_ahead(ctx, ["memcheck"])
        assert not searched.session._spares.get("submission")
        assert len(alone.session._spares["submission"]) == 1
        _start_ahead(searched, "generality", ["memcheck"])
        spares = searched.session._spares["submission"]
        assert len(spares) == 1 and spares[0].pid_target is None and spares[0].launched
    finally:
        for ctx in (searched, alone):
            ctx.session.close()


def test_a_restart_forks_the_first_process_and_starts_a_sandbox_where_it_cannot(tmp_path, config, monkeypatch) -> None:
    """On the CPU a restart is a fork of the sandbox's first process (tools/engine/sandbox/zygote.py): no
    spare stands by, the worker stays, its next child has its own pid and serves the same answers; once
    the fork sets are used, or after the child crashed, a restart starts a new sandbox as before."""
    import tools.engine.sandbox.worker as worker_module

    monkeypatch.setattr(worker_module, "FORK_SETS", 2)
    ctx = _spine_ctx(tmp_path, config)
    session = ctx.session
    try:
        case = Case(id="c", seed=1)
        ref = session.reference(case)
        first = session.run_submission(case, ref)
        assert first.ok, first.call.failure_text()
        worker = session._workers["submission"]
        assert worker.ready_info["forkable"] is True and worker.can_fork
        session.stand_by("submission")
        assert not session._spares.get("submission")  # nothing to start ahead: the restart forks
        pids = [session.served_pid("submission")]
        for n in (1, 2):
            session.restart("submission")
            assert session._workers["submission"] is worker and worker.forked == n and worker.starts == n + 1
            assert worker.pristine and worker.isolation and not worker.launched
            again = session.run_submission(case, ref)
            assert again.ok and again.call.child == worker.child_id, again.call.failure_text()
            assert len(again.outputs) == len(first.outputs) and all(torch.equal(a, b) for a, b in zip(again.outputs, first.outputs))
            pids.append(session.served_pid("submission"))
        assert len(set(pids)) == 3 and not worker.can_fork  # both sets used
        session.restart("submission")  # a new sandbox: its first child
        assert session.run_submission(case, ref).ok and worker.forked == 2 and worker.starts == 4
        assert worker.can_fork  # with fork sets of its own
    finally:
        session.close()
    assert worker.proc is None and not worker.can_fork


GC_PROBE = '''import gc

import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return torch.tensor([float(gc.isenabled()), float(gc.get_freeze_count())])
'''


@pytest.mark.parametrize("forks", ["on", "off"])
def test_the_collector_is_on_when_the_submission_runs(tmp_path, config, monkeypatch, forks: str) -> None:
    """A child makes its imports with the cyclic collector off and freezes what they made
    (tools/engine/sandbox/child.py ``prepare``); a submission, in a forked child or a started one, runs with
    it on again, so its own cycles are collected."""
    monkeypatch.setenv(FORKS_ENV, forks)
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", d / "reference.py")
    (d / "submission.py").write_text(GC_PROBE)
    ctx = make_tool_context(load_submission(d), config, tmp_path / "run", 7, detect_device("cpu"))
    session = ctx.session
    try:
        case = Case(id="c", seed=1)
        ref = session.reference(case)
        for restart in (False, True):  # the sandbox's first child, then a restart's (a fork where forks are on)
            if restart:
                session.restart("submission")
            run = session.run_submission(case, ref)
            assert run.call.answered, run.call.failure_text()
            enabled, frozen = run.outputs[0].tolist()
            assert enabled == 1.0 and frozen > 10_000, (restart, enabled, frozen)
        assert session._workers["submission"].forked == (1 if forks == "on" else 0)
    finally:
        session.close()
