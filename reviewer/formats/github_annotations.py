"""GitHub Actions annotations (workflow commands): ``::error file=...,line=...,title=...::message``.

Emitted when ``GITHUB_ACTIONS=true``: failed criteria as errors (warnings when optional), unverified
required criteria and confirmed findings as warnings, so they show on the run and, for lines a pull
request changed, on the diff. Messages and properties are escaped as the runner expects.
"""

from __future__ import annotations

import os

from reviewer.formats.common import finding_places, places, reruns
from reviewer.core.models import Review


def in_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def _data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, place, title: str, message: str) -> str:
    props = [f"file={_prop(place.path)}"]
    if place.start_line:
        props.append(f"line={place.start_line}")
        if place.end_line and place.end_line > place.start_line:
            props.append(f"endLine={place.end_line}")
    props.append(f"title={_prop(title)}")
    return f"::{level} {','.join(props)}::{_data(message)}"


def annotations(review: Review) -> list[str]:
    out: list[str] = []
    for c in review.criteria:
        if c.verdict == "fail":
            level = "error" if c.required else "warning"
        elif c.verdict == "unverified" and c.required:
            level = "warning"
        else:
            continue
        rr = reruns(review, c)
        msg = c.summary + (f"\nrerun: {rr[0]}" if rr else "")
        out.append(_command(level, places(review, c)[0], f"kreview {review.submission.name}: {c.title} {c.verdict}",
                            msg))
    for f in review.findings:
        if f.confirmed_by:
            level = {"error": "error", "warning": "warning", "info": "notice"}[f.severity]
            out.append(_command(level, finding_places(review, f.spans)[0], f"kreview finding: {f.category}",
                                f.message))
    return out
