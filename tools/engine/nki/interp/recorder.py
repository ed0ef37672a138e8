"""What happened while kernels ran: violations, suspicious accesses, memory peaks, launches.

One ``Recorder`` per process (``RECORDER``); the ``nki`` instrument resets it before a submission call
and reads it afterwards. Events name the kernel source line that caused them (the innermost frame
outside this package), so the reviewer can quote it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from tools.engine.nki.interp.errors import make_error

_PKG = os.path.dirname(os.path.abspath(__file__))
_MAX_EVENTS = 64


def user_location() -> tuple[str, int]:
    """(file, line) of the innermost frame that is not the interpreter's own code."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not os.path.abspath(fn).startswith(_PKG) and "contextlib" not in fn:
            return fn, f.f_lineno
        f = f.f_back  # type: ignore[assignment]
    return "<unknown>", 0


@dataclass
class Recorder:
    events: list[dict[str, Any]] = field(default_factory=list)
    dropped: int = 0
    launches: list[dict[str, Any]] = field(default_factory=list)
    ops: dict[str, int] = field(default_factory=dict)
    peak: dict[str, dict[str, Any]] = field(default_factory=dict)
    loops: dict[str, dict[str, Any]] = field(default_factory=dict)
    _seen: set[tuple[Any, ...]] = field(default_factory=set)

    def reset(self) -> None:
        self.events.clear()
        self.launches.clear()
        self.ops.clear()
        self.peak.clear()
        self.loops.clear()
        self._seen.clear()
        self.dropped = 0

    def event(self, kind: str, message: str, *, dedupe: tuple[Any, ...] | None = None, **data: Any) -> None:
        file, line = data.pop("where", None) or user_location()
        key = (kind, file, line) + (dedupe or ())
        if key in self._seen:
            return
        self._seen.add(key)
        if len(self.events) >= _MAX_EVENTS:
            self.dropped += 1
            return
        self.events.append({"kind": kind, "message": message, "file": file, "line": line, **data})

    def op(self, name: str) -> None:
        self.ops[name] = self.ops.get(name, 0) + 1

    def memory(self, space: str, bytes_per_partition: int) -> None:
        cur = self.peak.get(space)
        if cur is None or bytes_per_partition > cur["bytes_per_partition"]:
            file, line = user_location()
            self.peak[space] = {"bytes_per_partition": int(bytes_per_partition), "file": file, "line": line}

    def snapshot(self) -> dict[str, Any]:
        return {"events": list(self.events), "dropped_events": self.dropped, "launches": list(self.launches),
                "ops": dict(self.ops), "peak": dict(self.peak), "loops": list(self.loops.values())}


RECORDER = Recorder()


def violation(code: str, message: str, *, exc_type: type[BaseException] = SyntaxError, documented: bool,
              kind: str, doc: str | None = None, **data: Any) -> BaseException:
    """Record a rule violation and return the exception to raise (``raise violation(...)``)."""
    exc = make_error(code, message, exc_type=exc_type, documented=documented, doc=doc)
    RECORDER.event(kind, message, code=code, documented=documented, doc=exc.nki_doc,  # type: ignore[attr-defined]
                   raised=True, exception=exc_type.__name__, **data)
    return exc
