"""``nki``: what the reviewer's NKI interpreter saw during the call (violations, undefined values
reaching outputs, unwritten outputs, affine-loop hazards, SBUF/PSUM peaks, kernel launches).

If the call raises, the report rides on the exception as a note (``NOTE_PREFIX`` + JSON), since a
failed call returns only its error. Under the real Neuron SDK only the backend is reported.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from typing import Any

from tools.engine.harness.instruments import instrument
from tools.engine.nki.interp.recorder import RECORDER
from tools.engine.nki.version import INTERPRETER_LABEL, NOTE_PREFIX

_NOTE_EVENTS = 12


def _error(exc: BaseException) -> dict[str, Any]:
    return {"type": type(exc).__name__, "message": str(exc)[:1500], "code": getattr(exc, "nki_code", None),
            "documented": getattr(exc, "nki_documented", None), "doc": getattr(exc, "nki_doc", None),
            "unsupported": getattr(exc, "what", None) if type(exc).__name__.startswith("NkiUnsupported") else None}


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    raised = [e for e in data.get("events", []) if e.get("raised")]
    others = [e for e in data.get("events", []) if not e.get("raised")][:_NOTE_EVENTS]
    return {**{k: v for k, v in data.items() if k not in ("events", "loops", "launches")},
            "events": raised[-1:] + others, "launches": data.get("launches", [])[:4]}


@instrument("nki")
@contextlib.contextmanager
def nki_report(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    mode = os.environ.get("KREVIEW_NKI_MODE", "interpreter")
    data: dict[str, Any] = {"backend": mode}
    if mode != "interpreter":
        yield data
        return
    data["label"] = INTERPRETER_LABEL
    RECORDER.reset()
    try:
        yield data
    except BaseException as exc:
        data.update(RECORDER.snapshot())
        data["error"] = _error(exc)
        if hasattr(exc, "add_note"):
            exc.add_note(NOTE_PREFIX + json.dumps(_compact(data), default=str))
        raise
    data.update(RECORDER.snapshot())
