"""Child side of a sandbox worker, started by tools/engine/sandbox/entry.py (``python /app/main.py``, its
configuration the first line on standard input, which is the request pipe: ``boot``).

Everything here runs in the untrusted process, so nothing it reports is taken on trust by the
parent: tensors come back as files the parent loads with ``weights_only=True`` and compares itself.
"""

from __future__ import annotations

import faulthandler
import importlib
import json
import os
import sys
import traceback


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


def main(req_fd: int, resp_fd: int, config: dict) -> int:
    # the variables the parent gave the child: importing the harness sets some of its own
    # (reviewer/privacy.py switches LangChain tracing off: reviewer/core/tracing.py), taken away again before the task or the
    # submission loads, so a kernel does not read from them that it is under review (the preludes'
    # variables stay: the frameworks need them)
    given = set(os.environ)
    faulthandler.enable()
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
    loads, error = json.loads, _error
    try:
        measured = None
        if config.get("measure") is not None:
            # first thing, before any module the task or the submission brings: what isolation holds
            from tools.engine.sandbox.measure import measure

            measured = measure(config["measure"])
        for name in config.get("preludes", []):
            importlib.import_module(name).install(config)
        import torch

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
        dispatch = ops.dispatch
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
