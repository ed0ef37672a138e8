"""The ``nki`` instrument's report, read back in the reviewer's process.

A successful call carries it in ``run.meta["instruments"]["nki"]``; a failed one as a note on the
exception (``NOTE_PREFIX`` + JSON in the traceback). It comes from the untrusted child: the tool
treats it as what the interpreter *claims*, and every claim it turns into evidence is also checked by
the parent where it can be (outputs compared, source lines quoted from the submission's own files).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools.engine.nki.version import NOTE_PREFIX
from tools.engine.sandbox import CallResult

_KNOWN = ("kind", "message", "file", "line", "code", "documented", "doc", "raised", "exception", "tensor",
          "count", "loop_line", "loop_kind")


class NkiEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    message: str
    file: str = ""
    line: int = 0
    code: str | None = None
    documented: bool | None = None
    doc: str | None = None
    raised: bool = False
    exception: str | None = None
    tensor: str | None = None
    count: int | None = None
    loop_line: int | None = None
    loop_kind: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class NkiError(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: str
    message: str
    code: str | None = None
    documented: bool | None = None
    doc: str | None = None
    unsupported: str | None = None


class NkiReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: str = "interpreter"
    label: str = ""
    events: list[NkiEvent] = Field(default_factory=list)
    dropped_events: int = 0
    launches: list[dict[str, Any]] = Field(default_factory=list)
    ops: dict[str, int] = Field(default_factory=dict)
    peak: dict[str, dict[str, Any]] = Field(default_factory=dict)
    loops: list[dict[str, Any]] = Field(default_factory=list)
    error: NkiError | None = None

    @property
    def raised(self) -> NkiEvent | None:
        return next((e for e in reversed(self.events) if e.raised), None)

    def of_kind(self, *kinds: str) -> list[NkiEvent]:
        return [e for e in self.events if e.kind in kinds and not e.raised]


def _event(raw: dict[str, Any]) -> NkiEvent:
    known = {k: raw[k] for k in _KNOWN if k in raw}
    return NkiEvent(**known, data={k: v for k, v in raw.items() if k not in _KNOWN})


def parse(raw: Any) -> NkiReport | None:
    if not isinstance(raw, dict):
        return None
    try:
        body = {k: v for k, v in raw.items() if k != "events"}
        report = NkiReport.model_validate(body)
        report.events = [_event(e) for e in raw.get("events", []) if isinstance(e, dict)]
        return report
    except (ValidationError, TypeError, ValueError):
        return None


def from_call(call: CallResult, meta: dict[str, Any] | None) -> NkiReport | None:
    """The report of a submission call, whether it succeeded or raised."""
    if meta and isinstance(meta.get("instruments"), dict) and "nki" in meta["instruments"]:
        return parse(meta["instruments"]["nki"])
    text = ((call.error or {}).get("traceback") or "") + (call.crash.stderr_tail if call.crash else "")
    for line in reversed(text.splitlines()):
        if line.startswith(NOTE_PREFIX):
            try:
                return parse(json.loads(line[len(NOTE_PREFIX):]))
            except ValueError:
                return None
    return None
