"""Whether a source span quotes the submission truthfully (the grounding rule every layer applies)."""

from __future__ import annotations

import re
from pathlib import Path

from reviewer.core.models import SourceSpan

_WS = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def check_span(span: SourceSpan, root: Path) -> str | None:
    """Why ``span`` is not a true quote of the submission, or None if it is."""
    base = root.resolve()
    path = (base / span.file).resolve()
    if base not in path.parents and path != base:
        return f"{span.file} is outside the submission"
    if not path.is_file():
        return f"{span.file} does not exist"
    lines = path.read_text(errors="replace").splitlines()
    if span.start_line > span.end_line or span.end_line > len(lines):
        return f"{span.file}:{span.start_line}-{span.end_line} is out of range ({len(lines)} lines)"
    if not _norm(span.quote):
        return f"{span.file}:{span.start_line} quotes nothing"
    text = _norm("\n".join(lines[span.start_line - 1:span.end_line]))
    if _norm(span.quote) not in text:
        return f"the quoted text is not at {span.file}:{span.start_line}-{span.end_line}"
    return None
