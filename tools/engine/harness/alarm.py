"""The out-of-band alarm: the submission's first reach for a frame, written to the parent as it happens.

Everything a child puts in its reply can be rewritten by code that holds a frame of the harness: from
a frame it walks ``f_back`` to the request loop and replaces a cell of the sealed reply closure
(``cell_contents`` is writable, and neither that nor ``f_back``/``f_locals`` is audited:
tests/data/sandbox/hostile/forge_reply_cell.py). Every way to *obtain* a first frame (or the objects
that lead to one) raises an audit event before the object is handed out: ``sys._getframe``,
``sys._current_frames``, the ``tb_frame``/``gi_frame``/``cr_frame``/``ag_frame`` attributes, the
``gc`` walkers, a trace or profile function, and ``ctypes`` looking up a symbol of the Python C API
(``PyEval_GetFrame``). The hook installed here writes one short JSON line to a pipe of its own for
each such event whose site is the submission's own line, before the event returns: bytes in the pipe
are the parent's, and whatever the code does with the frame afterwards cannot take them back.

Attribution is the guard's (tools/engine/harness/frames.py): the immediate caller is the user's file.
A library walking the stack on its own (typing, enum, collections.namedtuple, pydantic, Triton) is not
the submission (issue 27). The exception: the standard library functions whose job is to hand frames
to their caller (``inspect.currentframe``, ``inspect.stack``, ``traceback.walk_stack``...), called
from the user's line, are charged to that line. Compiling code under a library's or the harness's
file name is charged too: events raised by such code would otherwise be attributed to the library.

Rationale for the shape: everything the hook uses is taken when it is installed (``os.write``, the
descriptor, the C JSON string encoder, the frozen file classification) and held in its closure, which
nothing outside the interpreter's hook list refers to; rebinding module globals afterwards does not
change it. The descriptor is non-blocking and each record is one write under ``PIPE_BUF`` bytes, so
a record is all there or absent, and a full pipe never blocks the child.
"""

from __future__ import annotations

import _thread
import ctypes
import importlib.util
import inspect
import json
import os
import sys
import traceback
from collections.abc import Callable
from types import FrameType

import tools.engine.harness.frames as frames
import tools.engine.harness.signals as signals

# attributes that hand out a frame (``f_code``/``__code__`` are audited too, but libraries read them
# all the time and they lead to no frame)
FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
# events that hand out a frame, or every live object (the request loop's frame among them), or install
# a function that is handed frames
FRAME_EVENTS = frozenset({"sys._getframe", "sys._current_frames", "gc.get_objects", "gc.get_referrers",
                          "gc.get_referents", "sys.settrace", "sys.setprofile"})
# looking up a C API symbol through ctypes (``ctypes.pythonapi.PyEval_GetFrame``); other symbols are
# what CUDA code uses ctypes for (driver and runtime entry points)
SYMBOL_EVENTS = frozenset({"ctypes.dlsym", "ctypes.dlsym/handle"})
# code given a file name: one outside the user's files makes later events look like a library's
COMPILE_EVENTS = frozenset({"compile", "code.__new__"})
WATCHED = FRAME_EVENTS | SYMBOL_EVENTS | COMPILE_EVENTS | {"object.__getattr__"}
# the events the harness guard also records in the child's reply (tools/engine/harness/instruments/
# harness_guard.py), so the parent can tell a reply that omits one (tools/integrity/checks.py)
REPLY_EVENTS = WATCHED - COMPILE_EVENTS


def _source_of(module: str) -> str:
    """The file a standard library module is loaded from, without importing it (the child does not
    pay for pdb's imports at every start, nor show pdb loaded to the submission)."""
    spec = importlib.util.find_spec(module)
    return (spec.origin if spec is not None else None) or f"<no {module}>"


# the standard library functions that return frames to their caller
HANDERS = {inspect.__file__: frozenset({"currentframe", "stack", "trace", "getouterframes", "getinnerframes"}),
           traceback.__file__: frozenset({"walk_stack", "walk_tb"}),
           _source_of("bdb"): frozenset({"set_trace"}), _source_of("pdb"): frozenset({"set_trace"})}
# ``ctypes.pythonapi.PyEval_GetFrame`` raises ``ctypes.dlsym`` inside ctypes' own ``__getattr__``: for
# those events the frames of the ctypes package are passed through to the line that asked
_CTYPES = os.path.dirname(ctypes.__file__) + os.sep
# a trace or profile function installed by the standard library for the user's line (``bdb``, ``pdb``,
# ``profile``, ``trace``: their dispatch methods, which a subclass of the user's overrides, are handed
# every frame): for those events the standard library's frames are passed through to that line
_STDLIB = os.path.dirname(os.__file__) + os.sep
_INSTALLED = ("site-packages", "dist-packages")
TRACE_EVENTS = frozenset({"sys.settrace", "sys.setprofile"})
MAX_ALARMS = 32
_RECORD_MAX = 3000  # under PIPE_BUF (4096): one atomic write


def attribution(kind_of: Callable[[str], str]) -> Callable[[FrameType | None, str], FrameType | None]:
    """``site(caller, event)``: the user's frame an audited frame access is charged to, or None.

    ``caller`` is the frame that called the audited function. It is charged when it is the user's; or
    when it is one of the standard library functions that hand frames out (``HANDERS``), reached
    (through others of them) from the user's line; a symbol lookup is charged to the line that made
    ctypes look it up, a trace or profile function to the line that made the standard library install
    it. ``kind_of`` classifies a file name. Every name the returned function uses is a
    closure variable (no global or builtin is looked up when it runs)."""
    handers = dict(HANDERS)
    empty = frozenset()
    symbol_events, via_ctypes = SYMBOL_EVENTS, _CTYPES
    trace_events, stdlib, (site_packages, dist_packages) = TRACE_EVENTS, _STDLIB, _INSTALLED

    def standard(name: str) -> bool:
        return name.startswith(stdlib) and site_packages not in name and dist_packages not in name

    def site(caller: FrameType | None, event: str) -> FrameType | None:
        if event in symbol_events:
            while caller is not None and caller.f_code.co_filename.startswith(via_ctypes):
                caller = caller.f_back
        elif event in trace_events:
            while caller is not None and standard(caller.f_code.co_filename):
                caller = caller.f_back
        if caller is None:
            return None
        name = caller.f_code.co_filename
        if name not in handers:
            return caller if kind_of(name) == "user" else None
        outer, frame = "", caller
        while frame is not None and frame.f_code.co_filename in handers:
            code = frame.f_code
            outer = code.co_name if code.co_name in handers.get(code.co_filename, empty) else ""
            frame = frame.f_back
        if frame is not None and outer and kind_of(frame.f_code.co_filename) == "user":
            return frame
        return None

    return site


def classifier(kind_of: Callable[[str], str]) -> Callable[[str, tuple[object, ...]], str | None]:
    """``describe(event, args)``: the argument an alarm names for ``event`` (the attribute, symbol or
    file name; ``""`` for none), or None when the event hands out no frame. Closure variables only."""
    frame_attrs, frame_events, symbol_events, compile_events = FRAME_ATTRS, FRAME_EVENTS, SYMBOL_EVENTS, COMPILE_EVENTS
    is_instance, length, fsdecode, text, data = isinstance, len, os.fsdecode, str, bytes
    api = ("Py", "_Py")

    def describe(event: str, args: tuple[object, ...]) -> str | None:
        name = args[1] if length(args) > 1 else None
        if event == "object.__getattr__":
            return name if is_instance(name, text) and name in frame_attrs else None
        if event in frame_events:
            return ""
        if event in symbol_events:
            return name if is_instance(name, text) and name.startswith(api) else None
        if event in compile_events:
            path = fsdecode(name) if is_instance(name, (text, data)) else None
            return path[:500] if path is not None and kind_of(path) != "user" else None
        return None

    return describe


def install(fd: int) -> None:
    """Add the alarm hook (it cannot be removed) and the signal handler check that writes through it
    (tools/engine/harness/signals.py); ``fd`` is the write end of the alarm pipe."""
    write, get_ident, getframe = os.write, _thread.get_ident, sys._getframe
    escape = getattr(json.encoder, "c_encode_basestring_ascii", None) or json.encoder.encode_basestring_ascii
    kind_of = frames.frozen_kind_of()
    site_of, describe = attribution(kind_of), classifier(kind_of)
    watched, frame_attrs, limit, most = WATCHED, FRAME_ATTRS, MAX_ALARMS, _RECORD_MAX
    length, number, failure = len, int, BaseException
    os.set_blocking(fd, False)
    os.set_inheritable(fd, False)
    busy: set[int] = set()
    seen: set[tuple[str, str, int]] = set()

    def report(event: str, arg: str, file: str, line: int, function: str) -> None:
        key = (event, file, line)
        if key in seen or length(seen) >= limit:
            return
        seen.add(key)
        record = (f'{{"event": {escape(event)}, "arg": {escape(arg)}, "file": {escape(file[:1000])}, '
                  f'"line": {number(line or 0)}, "function": {escape(function[:200])}}}\n').encode()
        if length(record) <= most:
            write(fd, record)

    # Rationale: a signal handler is handed a frame with no audit event; reading the checking
    # function's ``__code__`` (whose constants hold the original) is charged here
    checked, creator = signals.install(report, kind_of, busy)
    code_read = signals.code_read(report, kind_of)

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event not in watched:
            return
        if event == "object.__getattr__" and (length(args) < 2 or args[1] not in frame_attrs):
            # f_code, __code__: the common case, left first
            if length(args) < 2 or (args[0] is not checked and args[0] is not creator):
                return
            me = get_ident()
            if me not in busy:
                busy.add(me)
                try:
                    code_read(getframe(1))
                finally:
                    busy.discard(me)
            return
        me = get_ident()
        if me in busy:
            return
        busy.add(me)
        try:
            arg = describe(event, args)
            if arg is None:
                return
            site = site_of(getframe(1), event)
            if site is None:
                return
            code = site.f_code
            report(event, arg, code.co_filename, site.f_lineno or 0, code.co_name)
        except failure:  # noqa: S110 - an audit hook must never raise into the audited code
            pass
        finally:
            busy.discard(me)

    sys.addaudithook(hook)
