"""Child side of a sandbox worker, started by tools/engine/sandbox/entry.py (``python /app/main.py``, its
configuration the first line on standard input, which is the request pipe: ``boot``).

Everything here runs in the untrusted process, so nothing it reports is taken on trust by the
parent: tensors come back as files the parent loads with ``weights_only=True`` and compares itself.
"""

from __future__ import annotations

import faulthandler
import gc
import importlib
import json
import os
import sys
import traceback
from typing import Any, NamedTuple


def _sender(fd: int):  # noqa: ANN202 - a closure
    """The reply function, sealed before any code of the task or the submission is imported.

    Rationale: the reply path is held in this closure (the descriptor, ``os.write`` and a JSON
    encoder taken now), not looked up at call time in module globals: code that later rebinds
    ``__main__._send``, ``os.write``, ``json.dumps`` or ``ops.dispatch`` does not change what the
    parent is sent. (In-process sealing raises the cost of forging; it is not proof: the parent
    checks what it can itself.)"""
    write = os.write
    view_of = memoryview
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is not None:
        escape = json.encoder.encode_basestring_ascii

        def encode(msg: dict) -> str:
            return "".join(make({}, str, escape, None, ": ", ", ", False, False, True)(msg, 0))
    else:  # pragma: no cover - CPython always has the C encoder
        encode = json.JSONEncoder(default=str).encode

    def send(msg: dict) -> None:
        view = view_of((encode(msg) + "\n").encode())
        while view:
            view = view[write(fd, view):]

    return send


def _send(fd: int, msg: dict) -> None:
    """One message (for callers outside the request loop; the loop uses its sealed ``_sender``)."""
    _sender(fd)(msg)


def _error(exc: BaseException) -> dict:
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    out = {"type": type(exc).__name__, "message": str(exc)[:4000], "traceback": tb[-12000:]}
    observed = getattr(exc, "kreview_instruments", None)
    if isinstance(observed, dict):
        out["instruments"] = observed
    return out


def boot(config: dict) -> int:
    """From the entry script, with the configuration it read from standard input (the request pipe).

    The request pipe moves off standard input (``/dev/null`` in its place, as a program started
    without input has). Where the child is the first process of its own pid namespace (``init``:
    bubblewrap's ``--as-pid-1``), it stays as that namespace's init, reaping orphans, and the process
    that serves requests is forked from it, after the pid counter was raised to ``pid_target``
    (tools/engine/sandbox/pid_counter.py): nothing of the task or the submission has run by then.
    Rationale: with bubblewrap's own init as pid 1, ``/proc/1/cmdline`` is bubblewrap's command line,
    which names the sandbox's folders; and the serving process would always be pid 2."""
    req_fd = os.dup(0)  # not inheritable
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    resp_fd = int(config["response_fd"])
    if not (config.get("init") and os.getpid() == 1):
        return main(req_fd, resp_fd, config)
    if config.get("forks"):
        return _zygote(req_fd, resp_fd, config)
    target = config.get("pid_target")
    if target:
        from tools.engine.sandbox.pid_counter import raise_to

        raise_to(int(target))
    pid = os.fork()
    if pid == 0:
        return main(req_fd, resp_fd, config)
    os.close(req_fd)
    os.close(resp_fd)
    if config.get("alarm_fd") is not None:
        # Rationale: the serving process holds the only write end, so the parent sees the pipe close
        # if that process closes it (tools/engine/sandbox/worker.py ``_drain_alarms``)
        os.close(int(config["alarm_fd"]))
    return _reap(pid)


def _reap(pid: int) -> int:
    """As the namespace's init: reap every process that ends (orphans included) until ``pid`` does,
    then exit with its status (128 + the signal for one killed by a signal, as bubblewrap's init does);
    the namespace's other processes are killed with it."""
    while True:
        try:
            done, status = os.wait()
        except ChildProcessError:
            return 1
        if done == pid:
            return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def _wake(signum: int, frame: object) -> None:
    """SIGCHLD in the first process: its only effect is the byte on the wakeup pipe."""


def _zygote(req_fd: int, resp_fd: int, config: dict) -> int:
    """The namespace's init as the origin of the role's serving processes (tools/engine/sandbox/zygote.py):
    it makes the imports once, forks the first serving process, then, at each message on the control
    pipe (``{"set": i}``), kills every other process, empties ``/tmp`` and ``/dev/shm`` and forks the next
    one onto the i-th set of request, reply and alarm pipes the parent passed at launch. It ends, with the
    serving process's status, when that process ends on its own, as the init of ``boot`` does; it ends
    without forking (the parent then starts a new sandbox) where the copy would not be exact."""
    import select
    import signal

    import tools.engine.sandbox.zygote as zygote
    from tools.engine.sandbox.pid_counter import raise_to

    control = int(config["control_fd"])
    os.set_inheritable(control, False)
    sets = [[int(fd) for fd in s] for s in config["forks"]]
    wake_r, wake_w = os.pipe()
    for fd in (wake_r, wake_w):
        os.set_blocking(fd, False)
    # Rationale: before the preludes and the harness load, so the alarm's signal check counts this handler
    # among those installed before the submission (tools/engine/harness/signals.py)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, _wake)
    # Rationale: a serving process can signal the namespace's init only where it handles the signal, and
    # Python handles SIGINT: ignored here, the interpreter's own handler again in each serving process
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    alarm = config.get("alarm_fd")
    base = (req_fd, resp_fd, int(alarm) if alarm is not None else None)
    prepared = prepare(req_fd, resp_fd, config, serving=False)
    if prepared is None:
        return 1
    why_not = zygote.forkable(prepared.threads)
    zygote.set_dumpable(False)
    # Rationale: the fatal-signal handlers are each serving process's own (enabled again there): in the
    # first process they would be handlers a serving process could fire by a signal to pid 1
    faulthandler.disable()

    def serving(own: list[int] | None) -> int:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd in (wake_r, wake_w, control):
            os.close(fd)
        if own is not None:
            zygote.take_fds((own[0], own[1], own[2]), base)
        for fds in sets:
            for fd in fds:
                if fd >= 0 and (own is None or fd not in own):
                    os.close(fd)
        zygote.set_dumpable(True)
        faulthandler.enable()
        return serve(req_fd, prepared, config, forked=True)

    target = config.get("pid_target")
    if target:
        raise_to(int(target))
    # what a serving process could leave for the next one beyond its memory, before the first can
    try:
        before = zygote.state()
        keep = zygote.kept_paths(before)
    except Exception as exc:  # noqa: BLE001 - no fork without it: every restart starts a new sandbox
        before, keep = {}, frozenset()
        why_not = [*why_not, f"state not recorded: {exc!r}"[:300]]
    prepared.ready.update(forkable=not why_not, not_forkable=why_not)
    current = os.fork()
    if current == 0:
        return serving(None)
    zygote.park_fds(base)
    pending = b""
    while True:
        readable, _, _ = select.select([control, wake_r], [], [])
        if wake_r in readable:
            try:
                while os.read(wake_r, 256):
                    pass
            except BlockingIOError:
                pass
        while True:  # reap what ended; the serving process ending on its own ends the sandbox
            try:
                done, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if done == 0:
                break
            if done == current:
                return zygote.exit_status(status)
        if control not in readable:
            continue
        chunk = os.read(control, 4096)
        if not chunk:  # the parent let go of the sandbox
            zygote.kill_all()
            return 0
        pending += chunk
        while b"\n" in pending:
            line, _, pending = pending.partition(b"\n")
            index = json.loads(line).get("set")
            own = sets[index] if isinstance(index, int) and 0 <= index < len(sets) else None
            zygote.kill_all()
            try:
                clean = not why_not and zygote.empty_scratch(keep)
                if clean:
                    zygote.restore_times(before)
                    clean = not zygote.drift(before)
            except Exception:  # noqa: BLE001 - a check that cannot be made is a difference
                clean = False
            if not clean or own is None or min(own) < 0:
                # Rationale: no fork unless the copy is exact and nothing the last serving process changed
                # is left; the parent sees the reply pipe close and starts a new sandbox for the restart
                return 0
            current = os.fork()
            if current == 0:
                return serving(own)
            for fd in own:
                os.close(fd)
            sets[index] = [-1, -1, -1]


class Prepared(NamedTuple):
    """What a serving process needs, made before anything of the task or the submission runs."""

    send: Any
    dispatch: Any
    state: Any
    ready: dict
    measure: Any
    threads: int
    """The process's threads once numpy is imported (its OpenBLAS pool's), before the preludes."""
    set_threads: Any


def main(req_fd: int, resp_fd: int, config: dict) -> int:
    prepared = prepare(req_fd, resp_fd, config, serving=True)
    return 1 if prepared is None else serve(req_fd, prepared, config, forked=False)


def prepare(req_fd: int, resp_fd: int, config: dict, *, serving: bool) -> Prepared | None:
    """The child's imports and setup, up to its ready message (None: the failure was sent as the reply to
    the start). ``serving``: this process serves the requests; else it is a zygote (tools/engine/sandbox/
    zygote.py) and each fork measures the isolation and sets torch's thread count (which starts a thread
    pool) before its ready message (``serve``)."""
    # the variables the parent gave the child: importing the harness sets some of its own
    # (reviewer/privacy.py switches LangChain tracing off: reviewer/core/tracing.py), taken away again before the task or the
    # submission loads, so a kernel does not read from them that it is under review (the preludes'
    # variables stay: the frameworks need them)
    given = set(os.environ)
    faulthandler.enable()
    # Rationale: the imports below make hundreds of thousands of objects, and every collection they set off
    # walks all of those made so far (torch's import took about 15 % longer with the collector on); what they
    # made is frozen once they are done (``gc.freeze``: a fork shares its pages, later collections skip it)
    gc.disable()
    root = config.get("package_root")
    # the reviewer's PYTHONPATH library folders, in its order (tools/engine/sandbox/libraries.py)
    for folder in reversed(config.get("library_paths") or []):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    if root and root not in sys.path:
        sys.path.insert(0, root)
    os.set_inheritable(req_fd, False)
    os.set_inheritable(resp_fd, False)
    send = _sender(resp_fd)
    try:
        measured = None
        measure = None
        if config.get("measure") is not None:
            # first thing, before any module the task or the submission brings: what isolation holds
            from tools.engine.sandbox.measure import measure

            if serving:
                measured = measure(config["measure"])
        import numpy  # noqa: F401 - its OpenBLAS pool's threads are the only ones a zygote may hold

        from tools.engine.sandbox.zygote import thread_count

        threads = thread_count()
        for name in config.get("preludes", []):
            importlib.import_module(name).install(config)
        import torch

        if serving:
            torch.set_num_threads(int(config.get("threads", 1)))
        import tools.engine.harness.instruments.harness_guard as harness_guard
        import tools.engine.harness.alarm as alarm

        if config.get("alarm_fd") is not None:
            # Rationale: before the withdrawal and the ready message, so before any code of the task or
            # the submission runs (tools/engine/harness/alarm.py)
            alarm.install(int(config["alarm_fd"]))
        import tools.engine.harness.ops as ops
        from tools.engine.harness.instruments.torch_ops import follow_threads, open_library_kernels
        from tools.engine.sandbox.libraries import origins
        from tools.engine.sandbox.own_modules import withdraw
        from reviewer.core.tracing import TRACING_VARIABLES as tracing

        follow_threads()  # a helper thread's torch operators reach the operator trace (before any user code)
        open_library_kernels()  # every Python kernel the dispatcher gets from now on runs traced
        state = ops.ChildState(config)
        # Rationale: from here on ``tools``/``reviewer`` are the submission's (or the task's) own, if
        # it ships them; the harness runs on the references it holds (tools/engine/sandbox/own_modules.py).
        held = withdraw(root or "")
        harness_guard.seal(held)
        for name in tracing - given:
            os.environ.pop(name, None)
        ready = {"python": sys.version.split()[0], "torch": torch.__version__, "pid": os.getpid(),
                 "isolation": measured, "withdrawn": len(held), "libraries": origins()}
        gc.freeze()
        return Prepared(send, ops.dispatch, state, ready, measure, threads, torch.set_num_threads)
    except BaseException as exc:  # noqa: BLE001 - any failure here is reported, then we stop
        send({"id": 0, "ok": False, "error": _error(exc)})
        return None
    finally:
        gc.enable()  # before any code of the task or the submission runs


def serve(req_fd: int, prepared: Prepared, config: dict, *, forked: bool) -> int:
    """Send the ready message, then answer requests until the request pipe closes. ``forked``: a zygote's
    fork, which first measures the isolation and sets torch's thread count (``prepare``)."""
    send, dispatch, state, ready = prepared.send, prepared.dispatch, prepared.state, dict(prepared.ready)
    loads, error = json.loads, _error
    try:
        if forked:
            if prepared.measure is not None:
                ready["isolation"] = prepared.measure(config["measure"])
            prepared.set_threads(int(config.get("threads", 1)))
        ready["pid"] = os.getpid()
        send({"id": 0, "ok": True, "result": ready})
    except BaseException as exc:  # noqa: BLE001 - any failure here is reported, then we stop
        send({"id": 0, "ok": False, "error": error(exc)})
        return 1
    with os.fdopen(req_fd, "rb", buffering=0) as requests:
        buf = b""
        while True:
            chunk = requests.read(1 << 16)
            if not chunk:
                return 0
            buf += chunk
            while b"\n" in buf:
                line, _, buf = buf.partition(b"\n")
                req = loads(line)
                try:
                    result = dispatch(req["op"], req.get("payload") or {}, state)
                    msg = {"id": req["id"], "ok": True, "result": result}
                except BaseException as exc:  # noqa: BLE001 - SystemExit from user code included
                    msg = {"id": req["id"], "ok": False, "error": error(exc)}
                send(msg)
