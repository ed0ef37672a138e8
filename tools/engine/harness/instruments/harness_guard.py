"""``harness_guard``: attempts on the harness, seen from inside the child.

Three observations, all cheap:

- *replaced functions*: timers, comparison functions, the harness's own save/describe helpers and
  a few more (``WATCHED``) are snapshotted when this module is imported, which ``tools.engine.harness.ops``
  does at child start, before any user code runs. Any that is no longer the same object before or
  after the call was replaced by the submission (at import or during the call). When the child has
  loaded every module of ours it will run, ``seal`` also snapshots each of those modules' globals
  that name a module, function or class: the harness calls through them, so rebinding one (reached
  through a frame's ``f_globals``, ``gc`` or a function's ``__globals__``) is a replacement too.
- *audited events*: a ``sys.addaudithook`` hook (it cannot be removed) records events raised by the
  submission's own code since the child started: files opened or listed, the call stack or the
  garbage collector inspected, ``id()`` taken, processes or sockets started, trace hooks set.
- *threads and processes left running* after the call (work that escapes timing).

The submission shares the process, so this is evidence of an attempt, not proof of absence: the
parent reports what it sees and relies on isolation for the rest.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
from collections.abc import Iterator
from types import FunctionType, ModuleType
from typing import Any

import tools.engine.harness.alarm as alarm
import tools.engine.harness.frames as frames
import tools.engine.harness.own_code as own_code
from tools.engine.harness.instruments import instrument
from tools.engine.sandbox.own_modules import is_own

WATCHED = (
    "time.perf_counter", "time.perf_counter_ns", "time.time", "time.time_ns", "time.monotonic",
    "time.monotonic_ns", "time.process_time", "time.sleep",
    "torch.allclose", "torch.isclose", "torch.equal", "torch.testing.assert_close", "torch.Tensor.allclose",
    "torch.Tensor.equal", "torch.Tensor.__eq__", "torch.Tensor.clone", "torch.Tensor.copy_",
    "torch.save", "torch.load", "torch.cuda.synchronize", "torch.cuda.Event", "torch.cuda.current_stream",
    "torch.manual_seed", "torch.Tensor.__torch_function__",
    "numpy.allclose", "numpy.testing.assert_allclose", "numpy.array_equal",
    "builtins.open", "builtins.print", "builtins.isinstance", "builtins.type",
    "os.write", "os.read", "os.open", "os._exit", "sys.exit", "json.dumps", "json.loads",
    "tools.engine.harness.tensors.save", "tools.engine.harness.tensors.load", "tools.engine.harness.tensors.describe",
    "tools.engine.harness.tensors.to_plain", "tools.engine.harness.tensors.flatten", "tools.engine.harness.ops.dispatch",
    "tools.engine.harness.programs.SubmissionProgram.bind",
)
MODULES = ("tools.engine.harness.tensors", "tools.engine.harness.ops", "torch", "time", "os", "json")

# Rationale: these audit events have no business in a kernel's forward or import; each is a way to
# reach the harness (stack, gc, files, fds), to escape timing (processes) or to key a cache (id).
EVENTS = {"open", "os.listdir", "os.scandir", "glob.glob", "sys._getframe", "sys._current_frames",
          "gc.get_objects", "gc.get_referrers", "gc.get_referents", "builtins.id", "sys.settrace",
          "sys.setprofile", "sys.addaudithook", "subprocess.Popen", "os.system", "os.exec", "os.fork",
          "os.forkpty", "os.posix_spawn", "os.spawn", "os.kill", "os.killpg", "socket.connect",
          "socket.bind", "os.putenv", "os.unsetenv", "ctypes.dlopen", "os.remove", "os.rename",
          "os.truncate", "shutil.rmtree", "os.chmod", "object.__getattr__", "ctypes.dlsym", "ctypes.dlsym/handle"}
# Rationale: the events that hand out a frame are judged as the out-of-band alarm judges them
# (tools/engine/harness/alarm.py: which attribute or symbol, which caller), so a reply names what the
# alarm names and the parent can tell a reply that was rewritten from one that never saw the event.
_FRAME_EVENTS = alarm.REPLY_EVENTS
assert _FRAME_EVENTS <= EVENTS
_describe_frame_event = alarm.classifier(frames.kind_of)
_frame_site = alarm.attribution(frames.kind_of)
# Rationale: file events count even when a library does the opening for the user (torch.load);
# the rest only when the user's own line raises them (libraries legitimately spawn, walk stacks...).
_DEEP = {"open", "os.listdir", "os.scandir", "glob.glob", "os.remove", "os.rename", "os.truncate",
         "shutil.rmtree", "os.chmod"}
_MAX_EVENTS = 100
# Rationale: the child's private HOME, TMPDIR and caches are where compilers (Triton, Inductor,
# cpp_extension) legitimately read and write on the caller's behalf; nothing of the harness is there.
_CACHES = tuple(os.path.realpath(p).rstrip(os.sep) + os.sep for p in (
    os.environ.get("TRITON_CACHE_DIR"), os.environ.get("XDG_CACHE_HOME"), os.environ.get("TMPDIR"),
    os.environ.get("HOME"), os.environ.get("TORCH_EXTENSIONS_DIR"), os.environ.get("CUDA_CACHE_PATH")) if p)


# Rationale: the reviewer's own modules leave ``sys.modules`` before user code loads (the names are
# the submission's from then on: tools/engine/sandbox/own_modules.py), so watched names of ours are
# looked up in the modules the harness runs on, kept here when this module is imported.
_OWN: dict[str, Any] = {}


def _module(name: str) -> Any:
    if is_own(name):
        return _OWN.get(name)
    return sys.modules.get(name)


def _resolve(path: str) -> Any:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        mod = _module(".".join(parts[:cut]))
        if mod is None:
            continue
        obj: Any = mod
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
        return getattr(obj, "__func__", obj)  # a classmethod is a new bound method on every access
    return None


def _snapshot() -> dict[str, Any]:
    for name in ("time", "json", "torch", "numpy", "tools.engine.harness.tensors", "tools.engine.harness.programs"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    _OWN.update({n: m for n, m in sys.modules.items() if is_own(n)})
    snap = {path: _resolve(path) for path in WATCHED}
    snap.update({f"sys.modules[{m!r}]": _module(m) for m in MODULES})
    return {k: v for k, v in snap.items() if v is not None}


def _current(key: str) -> Any:
    if key.startswith("sys.modules["):
        name = key[len("sys.modules['"):-2]
        # one of ours absent from sys.modules is as withdrawn; anything put there under its name is not ours
        return sys.modules.get(name, _module(name))
    return _resolve(key)


_BASELINE = _snapshot()
# (module name, global name) -> the object the harness module's global named when the child was sealed
_GLOBALS: dict[tuple[str, str], tuple[ModuleType, Any]] = {}


def seal(modules: dict[str, ModuleType]) -> None:
    """Snapshot the module, function and class globals of every module of ours the child runs on
    (called once, after the last of them is imported and before any user code loads)."""
    own_code.hold(modules)
    for name, mod in modules.items():
        if not is_own(name):
            continue
        for attr, value in list(vars(mod).items()):
            if isinstance(value, (ModuleType, FunctionType, type)) and not attr.startswith("__"):
                _GLOBALS[(name, attr)] = (mod, value)
_EVENTS_SEEN: dict[tuple[str, str, int], dict[str, Any]] = {}
_STATE = {"phase": "import or an earlier call", "busy": False, "root": None, "dropped": 0}


def _describe_arg(event: str, args: tuple[Any, ...]) -> str:
    if event in ("open", "os.listdir", "os.scandir", "glob.glob", "os.remove", "os.rename", "os.chmod",
                 "os.truncate", "shutil.rmtree") and args:
        return str(args[0])[:300] + (f" mode={args[1]!r}" if event == "open" and len(args) > 1 else "")
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn") and args:
        return repr(args[:2])[:300]
    if event in ("os.putenv", "os.unsetenv") and args:
        return repr(args[0])[:100]
    if event in _FRAME_EVENTS:
        return _describe_frame_event(event, args) or ""
    return ""


# the position of the ``dir_fd`` argument a relative path is resolved against, per audit event
_DIR_FD = {"os.remove": 1, "os.chmod": 2, "shutil.rmtree": 1, "glob.glob/2": 3}


def _fd_path(fd: int) -> str | None:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except (OSError, ValueError):
        return None


def _resolved(target: Any, dir_fd: Any = None) -> str | None:
    """The real path an event acts on: a file descriptor's file, a path relative to a ``dir_fd``
    (``shutil.rmtree`` walks by descriptors), symbolic links followed (a link in a cache folder to
    a file of the harness is the harness's file)."""
    if isinstance(target, int):
        return _fd_path(target)
    if not isinstance(target, (str, bytes, os.PathLike)):
        return None
    path = os.fsdecode(target)
    if not os.path.isabs(path) and isinstance(dir_fd, int) and dir_fd >= 0:
        base = _fd_path(dir_fd)
        if base is None:
            return None
        path = os.path.join(base, path)
    return os.path.realpath(path)


def _event_paths(event: str, args: tuple[Any, ...]) -> list[str | None]:
    if event == "os.rename":  # (src, dst, src_dir_fd, dst_dir_fd)
        return [_resolved(args[0], args[2] if len(args) > 2 else None),
                _resolved(args[1], args[3] if len(args) > 3 else None)] if len(args) >= 2 else [None]
    pos = _DIR_FD.get(event)
    return [_resolved(args[0], args[pos] if pos is not None and len(args) > pos else None)]


def _quiet_path(event: str, args: tuple[Any, ...]) -> bool:
    """Files of the libraries and of the child's own caches: reading them is what imports and JIT
    compilers do on the caller's behalf (Triton writes, lists and removes its driver stub's build
    folder under TMPDIR on the first launch). Judged on the real path the event acts on, whoever
    asked for it: the same action on any other file is the submission's, through a library or not."""
    if event not in _DEEP or not args:
        return False
    paths = _event_paths(event, args)
    return all(p is not None and (p.startswith(frames.library_roots()) or p.startswith(_CACHES)) for p in paths)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event not in EVENTS or _STATE["busy"]:
        return
    if event == "object.__getattr__" and (len(args) < 2 or args[1] not in alarm.FRAME_ATTRS):
        return  # f_code, __code__: the common case, left first
    if event in _FRAME_EVENTS and _describe_frame_event(event, args) is None:
        return  # f_code, __code__, a driver symbol: no frame handed out
    if _quiet_path(event, args):
        return
    _STATE["busy"] = True
    try:
        caller = sys._getframe(1)
        if event in _FRAME_EVENTS:
            user = _frame_site(caller, event)
            site = frames.user_site(user, _STATE["root"]) if user is not None else None
        elif event in _DEEP:
            site = frames.user_site(caller, _STATE["root"])
        else:
            kind = frames.kind_of(caller.f_code.co_filename)
            site = frames.user_site(caller, _STATE["root"]) if kind == "user" else None
        if site is None:
            return
        key = (event, str(site["file"]), int(site["line"]))  # type: ignore[arg-type]
        entry = _EVENTS_SEEN.get(key)
        if entry is None:
            if len(_EVENTS_SEEN) >= _MAX_EVENTS:
                _STATE["dropped"] += 1
                return
            entry = {"event": event, "arg": _describe_arg(event, args), "site": site, "phase": _STATE["phase"],
                     "count": 0}
            _EVENTS_SEEN[key] = entry
        entry["count"] += 1
    except Exception:  # noqa: BLE001, S110 - an audit hook must never raise into the audited code
        pass
    finally:
        _STATE["busy"] = False


sys.addaudithook(_hook)


def _changed() -> Iterator[tuple[str, Any]]:
    for key, original in _BASELINE.items():
        now = _current(key)
        if now is not original:
            yield key, now
    for (name, attr), (mod, original) in _GLOBALS.items():
        now = vars(mod).get(attr)
        if now is not original:
            yield f"{name}.{attr} (a global the harness calls through)", now


def replaced() -> list[dict[str, Any]]:
    """Watched objects that are no longer the originals, with what replaced them."""
    out = []
    for key, now in _changed():
        code = getattr(now, "__code__", None)
        where = frames.relative(code.co_filename, _STATE["root"]) if code is not None else None
        origin = frames.kind_of(code.co_filename) if code is not None else "unknown"
        if origin in ("library", "harness"):
            continue  # a library re-wrapping its own function (torch does, lazily)
        out.append({"name": key, "now": repr(now)[:120], "origin": origin,
                    "defined_in": where, "line": code.co_firstlineno if code is not None else None})
    return out


def _threads() -> dict[int, str]:
    return {t.ident or 0: t.name for t in threading.enumerate() if t.is_alive()}


def _children() -> list[int]:
    try:
        import multiprocessing

        return [p.pid or 0 for p in multiprocessing.active_children()]
    except Exception:  # noqa: BLE001 - multiprocessing may be unusable in the sandbox
        return []


@contextlib.contextmanager
def guard(root: str | None = None) -> Iterator[dict[str, Any]]:
    """Observe one call: functions replaced before/during it, events, threads left running."""
    _STATE["root"] = root
    data: dict[str, Any] = {"replaced_before": replaced(), "replaced_during": [], "events": [],
                            "new_threads": [], "new_processes": [], "watched": len(_BASELINE)}
    threads, children = _threads(), set(_children())
    before = {e["name"] for e in data["replaced_before"]}
    _STATE["phase"] = "the probed call"
    try:
        yield data
    finally:
        _STATE["phase"] = "import or an earlier call"
        data["replaced_during"] = [e for e in replaced() if e["name"] not in before]
        data["new_threads"] = [{"ident": i, "name": n} for i, n in _threads().items() if i not in threads]
        data["new_processes"] = [p for p in _children() if p not in children]
        data["events"] = list(_EVENTS_SEEN.values())
        data["events_dropped"] = _STATE["dropped"]
        data["pid"] = os.getpid()
        data["root"] = root


@instrument("harness_guard")
@contextlib.contextmanager
def harness_guard(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    with guard(payload.get("user_root")) as data:
        yield data
