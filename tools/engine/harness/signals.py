"""Signal handlers in the alarm (tools/engine/harness/alarm.py): Python calls a handler with the frame
that was running when the signal arrived, and neither installing the handler nor calling it raises an
audit event (tests/data/sandbox/hostile/signal_frame_forge.py). So the alarm is written when a handler
that can be handed a frame is *installed* from the submission's own line, before the handler exists:
a signal can arrive at any moment after (``raise_signal``, ``os.kill``, a timer, SIGCHLD, SIGPIPE).

Every Python handler is installed by the ``signal`` function of the ``_signal`` built-in module (the
``signal`` module's ``signal`` looks it up there at each call). ``install`` puts in its place a Python
function that checks, then calls the original: the check charges a callable handler (a bound C method
such as ``dict.__setitem__`` stores the frame as well as a Python function does) unless it is
``default_int_handler``, or a handler that was installed before the submission loaded or that a
library or the harness installed since (put back by the user's line: ``signal.signal(n, old)``); the
installer is charged when it is the user's line (past the ``signal`` module's frames), or the handler
is the submission's own function whoever installs it (the nearest user frame is named, else the
function). SIG_DFL, SIG_IGN and calls that will fail (another thread than the main one, a wrong
argument count) are not charged. ``_imp.create_builtin``, through which every fresh ``_signal`` module
is made (``del sys.modules["_signal"]`` then ``import _signal``, ``importlib.import_module``,
``importlib.util.module_from_spec``, the function itself), is wrapped the same way and puts the
checking function into any module it makes (a fresh ``_imp`` included); ``importlib.reload`` of the
built-in module is a no-op (its state exists).

Rationale for the shape: the originals and the check are constants of the wrappers' code objects, not
closure cells or globals (``__closure__`` and ``__globals__`` are read without an audit event, while
``__code__`` raises one): reading either wrapper's ``__code__`` is itself charged (to the nearest user
frame), since its constants hold the original. Everything the check uses is taken at install. The
wrappers carry the originals' names, documentation and signatures, their code the standard library's
file names (``signal.py``, at the line of its own call, with the same columns; importlib's frozen
bootstrap), and they forward any arguments, so the originals' own errors come back unchanged. What
stays noticeable to a kernel that looks: ``_signal.signal`` and ``_imp.create_builtin`` are Python
functions, not built-ins (``type``, ``repr``, ``__code__``, ``__dict__``, ``__globals__``), and a
traceback out of ``_signal.signal`` shows one more ``signal.py`` frame.
"""

from __future__ import annotations

import _imp
import _signal
import _thread
import inspect
import signal as signal_module
import sys
import types
import warnings
from collections.abc import Callable
from types import FrameType

EVENT = "signal.signal"
_ORIGINAL, _CHECK = 10000000000001, 10000000000002  # placeholder constants, replaced in the code objects
_MAX_KNOWN = 256


def _code(source: str, filename: str, name: str, consts: dict[int, object]) -> types.CodeType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "'int' object is not callable": the placeholders
        module = compile(source, filename, "exec")
    code = next(c for c in module.co_consts
                if isinstance(c, types.CodeType) and c.co_name == name)
    return code.replace(co_consts=tuple(consts.get(c, c) if type(c) is int else c for c in code.co_consts))


def _function(code: types.CodeType, original: Callable[..., object], module: str) -> types.FunctionType:
    made = types.FunctionType(code, {"__builtins__": __builtins__, "__name__": module}, original.__name__)
    made.__qualname__, made.__module__, made.__doc__ = original.__name__, module, original.__doc__
    try:
        made.__signature__ = inspect.signature(original)  # type: ignore[attr-defined]
    except (TypeError, ValueError):  # pragma: no cover - both originals have text signatures
        pass
    return made


def _signal_source(lib: types.CodeType) -> str:
    """The wrapper of ``_signal.signal``, its call on the line (and columns) of the ``signal`` module's
    own call of it, so a traceback through it shows that line with the same marks."""
    spans = [(end - col, line, col, end) for line, end_line, col, end in lib.co_positions()
             if line is not None and line == end_line and col is not None and end is not None]
    _, line, col, end = max(spans) if spans else (0, 0, 0, 0)
    head, call = "    handler = ", f"{_ORIGINAL}(*args, **kwargs"
    if col == len(head) and end - col > len(call):
        call = call.ljust(end - col - 1)  # the closing parenthesis where the signal module's is
    return ("\n" * (max(line, 3) - 3) + "def signal(*args, **kwargs):\n"
            f"    {_CHECK}(args, kwargs)\n{head}{call})\n    return handler\n")


_IMP_SOURCE = (f"def create_builtin(*args, **kwargs):\n    module = {_ORIGINAL}(*args, **kwargs)\n"
               f"    {_CHECK}(module)\n    return module\n")


def install(report: Callable[[str, str, str, int, str], None], kind_of: Callable[[str], str],
            busy: set[int]) -> tuple[Callable[..., object], Callable[..., object]]:
    """Put the checking ``_signal.signal`` and ``_imp.create_builtin`` in place; ``report(event, arg,
    file, line, function)`` writes an alarm (the alarm hook's writer), ``busy`` is the hook's set of
    threads inside it. Returns the two wrappers: reading their ``__code__`` is charged by the hook
    (``code_read``)."""
    original, make = _signal.signal, _imp.create_builtin
    lib_file = signal_module.__file__
    names = {int(s): s.name for s in signal_module.Signals}
    default_int = _signal.default_int_handler
    main, get_ident, getframe = _thread.get_ident(), _thread.get_ident, sys._getframe
    function_type, method_type, builtin_type, module_type = (types.FunctionType, types.MethodType,
                                                              types.BuiltinFunctionType, types.ModuleType)
    code_of = types.FunctionType.__code__.__get__  # type: ignore[attr-defined]
    func_of = types.MethodType.__func__.__get__  # type: ignore[attr-defined]
    vars_of = module_type.__dict__["__dict__"].__get__
    index, is_callable, length, text, failure = int.__index__, callable, len, str, BaseException
    known: list[object] = []
    for number in range(1, signal_module.NSIG):
        try:
            handler = _signal.getsignal(number)
        except (ValueError, OSError):
            continue
        if callable(handler):
            known.append(handler)

    def own_function(handler: object) -> types.CodeType | None:
        if type(handler) is method_type:
            handler = func_of(handler)
        if type(handler) is function_type:
            code = code_of(handler)
            if kind_of(code.co_filename) == "user":
                return code
        return None

    outward = _outward(kind_of)

    def check(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
        me = get_ident()
        if kwargs or length(args) != 2 or me != main or me in busy:
            return  # the original refuses these calls
        busy.add(me)
        try:
            number, handler = args
            if not is_callable(handler) or handler is default_int:
                return  # SIG_DFL, SIG_IGN (ints), or the interpreter's own: no frame handed out
            for seen in known:
                if seen is handler:
                    return
            caller = getframe(1)  # the wrapper, then the signal module's frames, then its caller
            while caller is not None and caller.f_code.co_filename == lib_file:
                caller = caller.f_back
            if caller is not None and kind_of(caller.f_code.co_filename) == "user":
                site: FrameType | None = caller
            else:
                code = own_function(handler)
                if code is None:
                    if length(known) < _MAX_KNOWN:
                        known.append(handler)  # a library's or the harness's: it may be put back
                    return
                site = outward(caller)
                if site is None:
                    report(EVENT, name_of(number), code.co_filename, code.co_firstlineno, code.co_name)
                    return
            report(EVENT, name_of(number), site.f_code.co_filename, site.f_lineno or 0, site.f_code.co_name)
        except failure:  # noqa: S110 - the check never stands in the way of the call
            pass
        finally:
            busy.discard(me)

    def name_of(number: object) -> str:
        try:
            value = index(number)
        except failure:
            return "a signal"
        return names.get(value) or text(value)

    def patch(module: object) -> None:
        """Into a module ``create_builtin`` made: the wrappers in place of fresh originals."""
        try:
            if type(module) is not module_type:
                return
            found = vars_of(module)
            for key, wrapper in (("signal", checked), ("create_builtin", creator)):
                fresh = found.get(key)
                if type(fresh) is builtin_type and fresh.__self__ is module and fresh.__name__ == key:
                    found[key] = wrapper
        except failure:  # noqa: S110 - never in the way of an import
            pass

    checked = _function(_code(_signal_source(signal_module.signal.__code__), lib_file, "signal",
                              {_ORIGINAL: original, _CHECK: check}), original, "_signal")
    creator = _function(_code(_IMP_SOURCE, "<frozen importlib._bootstrap>", "create_builtin",
                              {_ORIGINAL: make, _CHECK: patch}), make, "_imp")
    vars(_signal)["signal"] = checked
    vars(_imp)["create_builtin"] = creator
    return checked, creator


def _outward(kind_of: Callable[[str], str]) -> Callable[[FrameType | None], FrameType | None]:
    """``outward(frame)``: the nearest user frame at or above ``frame`` past library frames; None at a
    harness frame (a closure over ``kind_of``, taken at install like everything else the checks use)."""

    def outward(frame: FrameType | None) -> FrameType | None:
        while frame is not None:
            kind = kind_of(frame.f_code.co_filename)
            if kind == "user":
                return frame
            if kind == "harness":
                return None
            frame = frame.f_back
        return None

    return outward


def code_read(report: Callable[[str, str, str, int, str], None], kind_of: Callable[[str], str],
              ) -> Callable[[FrameType | None], None]:
    """``charge(caller)``: a wrapper's ``__code__`` was read (its constants hold the original); charged
    to the nearest user frame outward (``dis`` or ``inspect`` reading it for the user's line included),
    not when a harness frame comes first."""
    failure = BaseException
    outward = _outward(kind_of)

    def charge(frame: FrameType | None) -> None:
        try:
            site = outward(frame)
            if site is not None:
                report(EVENT, "__code__", site.f_code.co_filename, site.f_lineno or 0, site.f_code.co_name)
        except failure:  # noqa: S110 - called from the audit hook
            pass

    return charge
