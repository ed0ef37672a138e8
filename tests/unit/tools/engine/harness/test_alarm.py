"""The out-of-band alarm (tools/engine/harness/alarm.py): the submission's own line taking a frame is
written to the alarm pipe before the frame is handed out; a library walking the stack on its own, and
the standard library formatting a traceback for the user, are not (issue 27).

Each case runs in a fresh interpreter with the alarm hook installed on a pipe, as a sandbox child has
it (an audit hook cannot be removed, so never in the test process); the test reads the pipe itself.
"""

from __future__ import annotations

import json
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
