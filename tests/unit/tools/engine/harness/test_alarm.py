"""The out-of-band alarm (tools/engine/harness/alarm.py): the submission's own line taking a frame is
written to the alarm pipe before the frame is handed out; a library walking the stack on its own, and
the standard library formatting a traceback for the user, are not (issue 27).

Each case runs in a fresh interpreter with the alarm hook installed on a pipe, as a sandbox child has
it (an audit hook cannot be removed, so never in the test process); the test reads the pipe itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[5]

USER = textwrap.dedent('''
    import collections, ctypes, enum, gc, inspect, os, sys, traceback, typing

    def tb_frame():
        try:
            raise LookupError
        except LookupError as exc:
            return getattr(exc.__traceback__, "tb_" + "frame")

    def gi_frame():
        def g():
            yield 1
        return g().gi_frame

    def getframe():
        return sys._getframe()

    def currentframe():
        return inspect.currentframe()

    def stack():
        return inspect.stack()

    def walk_tb():
        try:
            raise LookupError
        except LookupError as exc:
            return list(traceback.walk_tb(exc.__traceback__))

    def gc_objects():
        return len(gc.get_objects())

    def python_api():
        return ctypes.pythonapi.PyEval_GetFrame

    def library_name():
        return compile("x = 1", os.__file__, "exec")

    def namedtuple():
        return collections.namedtuple("Pair", "a b")

    def typevar():
        return typing.TypeVar("T")

    def an_enum():
        return enum.Enum("Colour", "RED GREEN")

    def format_exc():
        try:
            raise LookupError
        except LookupError:
            return traceback.format_exc()

    def format_stack():
        return traceback.format_stack()

    def driver_symbol():
        return ctypes.CDLL(None).malloc

    def profiled():
        import profile
        return profile.Profile().runcall(len, "abc")

    def own_code():
        return compile("x = 1", "<kernel>", "exec"), tb_frame.__code__
''')

DRIVER = textwrap.dedent('''
    import json, os, sys
    sys.path.insert(0, sys.argv[1])
    import tools.engine.harness.alarm as alarm
    r, w = os.pipe()
    os.set_blocking(r, False)
    alarm.install(w)
    ns = {}
    path = sys.argv[2]
    exec(compile(open(path).read(), path, "exec"), ns)
    out = {}
    for name in sys.argv[3:]:
        ns[name]()
        try:
            data = os.read(r, 1 << 16)
        except BlockingIOError:
            data = b""
        out[name] = [json.loads(line) for line in data.decode().splitlines()]
    print(json.dumps(out))
''')

CHARGED = {"tb_frame": ("object.__getattr__", "tb_frame"), "gi_frame": ("object.__getattr__", "gi_frame"),
           "getframe": ("sys._getframe", ""), "currentframe": ("sys._getframe", ""), "stack": ("sys._getframe", ""),
           "walk_tb": ("object.__getattr__", "tb_frame"), "gc_objects": ("gc.get_objects", ""),
           "python_api": ("ctypes.dlsym", "PyEval_GetFrame"), "library_name": ("compile", None),
           "profiled": ("sys.setprofile", "")}
NOT_CHARGED = ("namedtuple", "typevar", "an_enum", "format_exc", "format_stack", "driver_symbol", "own_code")


@pytest.fixture(scope="module")
def alarms(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[dict]], str]:
    folder = tmp_path_factory.mktemp("alarm")
    user, driver = folder / "submission.py", folder / "driver.py"
    user.write_text(USER)
    driver.write_text(DRIVER)
    res = subprocess.run([sys.executable, str(driver), str(ROOT), str(user), *CHARGED, *NOT_CHARGED],
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1]), USER


@pytest.mark.parametrize("name", sorted(CHARGED))
def test_the_users_own_line_taking_a_frame_raises_one_alarm_naming_it(alarms, name: str) -> None:
    got, source = alarms
    assert len(got[name]) == 1, got[name]
    record = got[name][0]
    event, arg = CHARGED[name]
    assert record["event"] == event
    if arg is not None:
        assert record["arg"] == arg
    # the line is the user's own: the function's body line in submission.py
    assert record["file"].endswith("submission.py") and record["function"] == name
    assert source.splitlines()[record["line"] - 1].strip().startswith("return")


@pytest.mark.parametrize("name", NOT_CHARGED)
def test_libraries_walking_the_stack_on_their_own_raise_no_alarm(alarms, name: str) -> None:
    got, _ = alarms
    assert got[name] == [], got[name]


# Signal handlers (tools/engine/harness/signals.py): Python hands a handler the running frame with no audit
# event, so installing one that can be handed a frame from the user's line is the alarm. ``# charged``
# marks the line each charged case's alarm names.
SIGNAL_USER = textwrap.dedent('''
    import _imp, _signal, asyncio, dis, faulthandler, importlib, importlib.util, os, signal, sys, threading
    import unittest
    import quietlib

    def h(signum, frame):
        pass

    def user_handler():
        signal.signal(signal.SIGUSR1, h)  # charged
        signal.raise_signal(signal.SIGUSR1)

    def direct():
        _signal.signal(signal.SIGUSR2, h)  # charged

    def bound_c_method():
        seen = {}
        signal.signal(signal.SIGUSR1, seen.__setitem__)  # charged
        signal.raise_signal(signal.SIGUSR1)
        return type(seen[signal.SIGUSR1]).__name__

    def module_dict():
        vars(vars(signal)["_signal"])["signal"](signal.SIGUSR1, h)  # charged

    def fresh_import():
        sys.modules.pop("_signal")
        import _signal as fresh
        fresh.signal(signal.SIGUSR1, h)  # charged

    def fresh_import_module():
        sys.modules.pop("_signal")
        importlib.import_module("_signal").signal(signal.SIGUSR1, h)  # charged

    def fresh_from_spec():
        importlib.util.module_from_spec(importlib.util.find_spec("_signal")).signal(signal.SIGUSR1, h)  # charged

    def fresh_create_builtin():
        _imp.create_builtin(importlib.util.find_spec("_signal")).signal(signal.SIGUSR1, h)  # charged

    def fresh_imp():
        sys.modules.pop("_imp")
        import _imp as fresh
        fresh.create_builtin(importlib.util.find_spec("_signal")).signal(signal.SIGUSR1, h)  # charged

    def reloaded():
        importlib.reload(sys.modules["_signal"]).signal(signal.SIGUSR1, h)  # charged

    def code_of_wrapper():
        return _signal.signal.__code__  # charged

    def dis_of_wrapper():
        return [i.argval for i in dis.get_instructions(_signal.signal)]  # charged

    def library_installs_users_function():
        quietlib.install_for(h)  # charged

    def ignore_and_default():
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        _signal.signal(signal.SIGUSR2, _signal.SIG_IGN)
        return signal.signal(signal.SIGINT, signal.default_int_handler)

    def library_own_handler():
        quietlib.install()

    def library_handler_put_back():
        old = signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        signal.signal(signal.SIGUSR1, old)
        return old is quietlib.handler

    def stdlib_handler():
        unittest.installHandler()
        unittest.removeHandler()

    def asyncio_handler():
        loop = asyncio.new_event_loop()
        try:
            loop.add_signal_handler(signal.SIGUSR2, print)
            loop.remove_signal_handler(signal.SIGUSR2)
        finally:
            loop.close()

    def from_a_thread():
        out = []

        def install():
            try:
                signal.signal(signal.SIGUSR1, h)
            except ValueError as exc:
                out.append(str(exc))

        t = threading.Thread(target=install)
        t.start()
        t.join()
        return out

    def c_level_handlers():
        r, w = os.pipe()
        faulthandler.register(signal.SIGUSR2, file=w, chain=False)
        faulthandler.unregister(signal.SIGUSR2)
        os.set_blocking(w, False)
        signal.set_wakeup_fd(w)
        signal.set_wakeup_fd(-1)
''')

QUIETLIB = textwrap.dedent('''
    import signal

    def handler(signum, frame):
        pass

    def install():
        signal.signal(signal.SIGUSR1, handler)

    def install_for(fn):
        signal.signal(signal.SIGUSR1, fn)
''')

SIGNAL_DRIVER = DRIVER.replace("sys.path.insert(0, sys.argv[1])",
                               "sys.path.insert(0, sys.argv[1])\nsys.path.insert(0, os.environ['QUIETLIB'])")

SIGNAL_CHARGED = {"user_handler": "SIGUSR1", "direct": "SIGUSR2", "bound_c_method": "SIGUSR1",
                  "module_dict": "SIGUSR1", "fresh_import": "SIGUSR1", "fresh_import_module": "SIGUSR1",
                  "fresh_from_spec": "SIGUSR1", "fresh_create_builtin": "SIGUSR1", "fresh_imp": "SIGUSR1",
                  "reloaded": "SIGUSR1", "code_of_wrapper": "__code__", "dis_of_wrapper": "__code__",
                  "library_installs_users_function": "SIGUSR1"}
SIGNAL_NOT_CHARGED = ("ignore_and_default", "library_own_handler", "library_handler_put_back", "stdlib_handler",
                      "asyncio_handler", "from_a_thread", "c_level_handlers")


@pytest.fixture(scope="module")
def signal_alarms(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    folder = tmp_path_factory.mktemp("signal_alarm")
    lib = folder / "libs"  # a library folder, as ``pip install --target`` makes one
    (lib / "quietlib-1.0.dist-info").mkdir(parents=True)
    (lib / "quietlib.py").write_text(QUIETLIB)
    user, driver = folder / "submission.py", folder / "driver.py"
    user.write_text(SIGNAL_USER)
    driver.write_text(SIGNAL_DRIVER)
    # the library's own handler is installed before the put-back case; the rest in any order
    names = [*SIGNAL_CHARGED, *SIGNAL_NOT_CHARGED]
    res = subprocess.run([sys.executable, str(driver), str(ROOT), str(user), *names], capture_output=True,
                         text=True, timeout=120, check=False, env={**os.environ, "QUIETLIB": str(lib)})
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(SIGNAL_CHARGED))
def test_a_signal_handler_installed_from_the_users_line_raises_one_alarm_naming_it(signal_alarms, name) -> None:
    got = signal_alarms[name]
    assert len(got) == 1, got
    record = got[0]
    assert (record["event"], record["arg"]) == ("signal.signal", SIGNAL_CHARGED[name])
    assert record["file"].endswith("submission.py") and record["function"] == name
    assert SIGNAL_USER.splitlines()[record["line"] - 1].endswith("# charged")


@pytest.mark.parametrize("name", SIGNAL_NOT_CHARGED)
def test_handlers_that_hand_the_user_no_frame_raise_no_alarm(signal_alarms, name) -> None:
    assert signal_alarms[name] == [], signal_alarms[name]


LOOKS = textwrap.dedent('''
    import _imp, _signal, inspect, json, os, signal, sys, traceback
    sys.path.insert(0, sys.argv[1])

    def looks():
        def error(call):
            try:
                call()
            except Exception as exc:
                return type(exc).__name__, str(exc), traceback.format_exception(exc)[2:]
        return {"names": [(f.__name__, f.__qualname__, f.__module__, f.__doc__, str(inspect.signature(f)))
                          for f in (_signal.signal, _imp.create_builtin)],
                "errors": [error(lambda: _signal.signal()), error(lambda: _signal.signal(signalnum=1, handler=print)),
                           error(lambda: signal.signal(signal.SIGKILL, print))]}

    if len(sys.argv) > 2:
        import tools.engine.harness.alarm as alarm
        r, w = os.pipe()
        alarm.install(w)
    print(json.dumps(looks()))
''')


def test_the_checking_functions_look_like_the_originals(tmp_path) -> None:
    """Names, documentation, signatures and the originals' own error messages; a traceback out of
    ``signal.signal`` ends in the same ``signal.py`` line with the same marks (the one extra frame and
    the function type are what stays noticeable: docs/sandbox.md)."""
    script = tmp_path / "looks.py"
    script.write_text(LOOKS)
    out = []
    for extra in ([], ["installed"]):
        res = subprocess.run([sys.executable, str(script), str(ROOT), *extra], capture_output=True, text=True,
                             timeout=120, check=False)
        assert res.returncode == 0, res.stderr[-2000:]
        out.append(json.loads(res.stdout.strip().splitlines()[-1]))
    plain, checked = out
    assert checked["names"] == plain["names"]
    lib_frame = plain["errors"][2][2][-2]  # signal.py's own call of _signal.signal
    assert "signal.py" in lib_frame and "_signal.signal(" in lib_frame
    for (kind, message, frames_plain), (kind2, message2, frames_checked) in zip(plain["errors"], checked["errors"]):
        assert (kind2, message2) == (kind, message)
        assert frames_checked == [*frames_plain[:-1], lib_frame, frames_plain[-1]]
