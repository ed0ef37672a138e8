"""Early launch of sandbox children: the reference and submission children start together, a launched
child is waited for (and its isolation checked) before its first request, and a launch that dies is a
startup crash, never a hang or a pass."""

from __future__ import annotations

import select
import shutil
import time
from pathlib import Path

import pytest

from reviewer.core.limits import SandboxLimits
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.kernelfiles import KERNELS
from tools.engine.harness.case import Case
from tools.engine.sandbox import SandboxWorker


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


def test_a_restart_puts_a_spare_in_place_and_keeps_a_child_that_ran_nothing(tmp_path, config) -> None:
    """``stand_by`` starts a spare while the used child works; ``restart`` swaps it in (no wait for an
    interpreter); a restart of a child that has run nothing keeps it; spares never used stop at close."""
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


def test_once_the_submission_runs_later_tools_start_their_children_ahead(tmp_path, config) -> None:
    """The graph's ``_prepare_ahead``: a spare for each fresh-child tool still to come, the compile
    child for resources; a tool that is not coming prepares nothing."""
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


def test_requests_sent_ahead_are_answered_in_order_and_a_crash_answers_those_behind_it(tmp_path) -> None:
    """``send`` writes a request without waiting (the child works while the parent goes on); ``receive``
    takes the answers in the order sent. A request whose child dies answers every request behind it
    (``orphaned``), so their senders ask a new child, as they would have had they waited."""
    work = tmp_path / "w"
    worker = SandboxWorker("ahead", work, SandboxLimits(startup_timeout_s=120.0))
    try:
        worker.launch()
        deadline = time.monotonic() + 120
        while not worker.ready_now():  # never blocks: the ready message is on the pipe, or not yet
            assert time.monotonic() < deadline
            time.sleep(0.05)
        first, second = worker.send("ping"), worker.send("ping")
        with pytest.raises(RuntimeError):
            worker.receive(second)
        a, b = worker.receive(first), worker.receive(second)
        assert a.ok and b.ok and a.result == b.result == {"pong": True}
        assert worker.requests == 2

        dies = work / "dies.py"
        dies.write_text("import os\nos._exit(3)\n")
        dying = worker.send("load", {"format": "kernelbench", "role": "submission",
                                     "spec": {"submission_path": str(dies)}})
        behind = worker.send("ping")
        res = worker.receive(dying)
        assert not res.answered and res.crash is not None and res.crash.exit_code == 3, res
        assert behind.orphaned and not dying.orphaned
        after = worker.receive(behind)
        assert not after.answered and after.crash is not None
        assert "stopped before it answered" in after.crash.message
        again = worker.call("ping")  # a new child serves the next request
        assert again.ok and worker.starts == 2
    finally:
        worker.close()


def _resources_items(ctx) -> list[tuple]:
    from tools.resources import ResourcesTool

    def untimed(x):
        if isinstance(x, dict):
            return {k: untimed(v) for k, v in x.items() if not k.endswith("seconds")}
        return x

    ResourcesTool().run(ctx)
    return [(e.outcome, e.defect, e.summary, untimed(e.result), e.inputs, e.config)
            for e in ctx.evidence if e.tool == "resources"]


def test_work_started_ahead_gives_the_items_the_tool_gives_without_it(tmp_path, config) -> None:
    """``_start_ahead`` once generality ends: resources captures its launches and sends every compile to its
    compile child, integrity_runtime's second child stands by; the resources items are those of a review
    that sent nothing ahead."""
    from reviewer.graph.nodes import _prepare_ahead, _start_ahead
    from tools.resources import _Captured, _PreparedCompiler

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ahead, plain = _spine_ctx(tmp_path / "a", config), _spine_ctx(tmp_path / "b", config)
    try:
        for ctx in (ahead, plain):
            assert ctx.session.load_submission().ok
            _prepare_ahead(ctx, ["resources"])
        compiler = ahead.facts.get(_PreparedCompiler).compiler
        deadline = time.monotonic() + 120
        while not compiler.worker.ready_now():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        _start_ahead(ahead, "numerics", ["resources", "integrity_runtime"])  # not the tool they wait for
        assert ahead.facts.get(_Captured) is None and not compiler._ahead
        spares = len(ahead.session._spares.get("submission", []))
        _start_ahead(ahead, "generality", ["resources", "integrity_runtime"])
        captured = ahead.facts.get(_Captured)
        assert captured is not None and captured.data and captured.data["launches"]
        assert [key for key, _, _ in compiler._ahead][0] == "load" and len(compiler._ahead) == 3  # sm_90, sm_80
        assert len(ahead.session._spares["submission"]) == spares + 1  # the second child, its pid raised
        got, want = _resources_items(ahead), _resources_items(plain)
        assert [i[0] for i in got] == ["pass", "pass"]
        # the same items, but for the folders each review works in
        assert repr(got).replace(str(tmp_path / "a"), "X") == repr(want).replace(str(tmp_path / "b"), "X")
    finally:
        for ctx in (ahead, plain):
            ctx.session.close()
