"""``host_coverage``: which line-to-line arcs of the submission's own Python files ran in the call.

coverage.py's C tracer in branch mode, restricted to the files named in the options
(``payload["instrument_options"]["host_coverage"] = {"submission_file": rel, "files": [rel, ...]}``,
paths relative to the submission's folder, which the child derives from the loaded submission's
path). Nothing of the harness, PyTorch or Triton is measured. Returns ``{"arcs": {rel: [[from, to],
...]}}`` in coverage.py's raw form (negative numbers: entering or leaving a code object); the parent
turns them into branches taken (tools/generality/branches.py). Like every instrument's output, a
claim from a process the submission shares.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# Rationale: imported at child start, before user code (tools/engine/sandbox/own_modules.py); a
# missing coverage.py is reported by the instrument, never a failed call.
try:
    import coverage
except ImportError:  # pragma: no cover - a core dependency; the parent reports it as not measured
    coverage = None  # type: ignore[assignment]

from tools.engine.harness import interpreter_launch
from tools.engine.harness.instruments import instrument


def _files(payload: dict[str, Any]) -> dict[str, str] | str:
    opts = (payload.get("instrument_options") or {}).get("host_coverage") or {}
    path = (payload.get("submission_spec") or {}).get("submission_path")
    rel = opts.get("submission_file")
    if not path or not rel:
        return "the submission's path is unknown in the child"
    root = Path(path)
    for _ in Path(rel).parts:
        root = root.parent
    return {os.path.realpath(root / f): f for f in opts.get("files") or [rel]}


def _paused_in_launches(cov: Any) -> list[Callable[[], None]]:
    """Stop tracing while a Triton kernel launches: with a trace function set, Python 3.11 runs
    every frame in its slow tracing mode (about 3x here), and the interpreter's launch is all
    Triton code plus the kernel body, neither of them host code. The collector's own pause/resume
    keeps the tracer (and its record of the caller's frame); stop/start would lose the arcs of the
    wrapper after the launch. Returns what to restore."""
    try:
        from triton.runtime import interpreter, jit
    except ImportError:
        return []
    collector = getattr(cov, "_collector", None)
    if collector is None or not hasattr(collector, "pause") or not hasattr(collector, "resume"):
        return []  # another coverage.py: trace the launch too (slower, same arcs)
    depth = [0]

    def make(original: Any) -> Any:
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            if depth[0] == 1:
                collector.pause()
            try:
                return original(self, *args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    collector.resume()

        return run

    original = jit.JITFunction.run
    jit.JITFunction.run = make(original)
    restore = [lambda: setattr(jit.JITFunction, "run", original)]
    try:
        restore.append(interpreter_launch.wrap_run(interpreter, make))
    except Exception:  # noqa: BLE001 - an interpreter without the entry: trace its launches too
        pass
    return restore


@instrument("host_coverage")
@contextlib.contextmanager
def host_coverage(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    data: dict[str, Any] = {"arcs": {}}
    files = _files(payload)
    if coverage is None or isinstance(files, str):
        data["error"] = "coverage.py is not importable" if coverage is None else files
        yield data
        return
    try:
        cov = coverage.Coverage(data_file=None, branch=True, include=list(files), config_file=False,
                                messages=False)
        cov.start()
    except Exception as exc:  # noqa: BLE001 - measuring must never break the call
        data["error"] = f"coverage.py did not start: {exc!r}"[:300]
        yield data
        return
    restore = _paused_in_launches(cov)
    try:
        yield data
    finally:
        for undo in reversed(restore):
            undo()
        try:
            cov.stop()
            measured = cov.get_data()
            for name in measured.measured_files():
                rel = files.get(os.path.realpath(name))
                if rel is not None:
                    data["arcs"][rel] = sorted([int(a), int(b)] for a, b in measured.arcs(name) or [])
        except Exception as exc:  # noqa: BLE001
            data["error"] = f"coverage.py data could not be read: {exc!r}"[:300]
