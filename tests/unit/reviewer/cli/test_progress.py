"""What a person sees on a terminal: the live progress line and Markdown that never breaks a command."""

from __future__ import annotations

import io

from rich.console import Console

from reviewer.cli.common import print_markdown
from reviewer.cli.progress import LiveReporter, PlainReporter, reporter
from reviewer.progress import ToolFinished, ToolStarted, outcome_summary

RERUN = ("kreview rerun examples/gelu_triton_buggy --tool correctness "
         "--case '{\"id\":\"correctness-0-0\",\"seed\":2048060238}'")


def _terminal(width: int = 60) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, color_system=None, width=width), buf


def test_rerun_commands_are_never_wrapped_on_a_narrow_terminal() -> None:
    console, buf = _terminal(60)
    md = ("# Kernel review\n\nA paragraph long enough to be wrapped by Rich at sixty columns, which is fine for "
          f"prose.\n\nRerun any item:\n\n- `correctness-1`: `{RERUN}`\n- `builds-1`: `kreview rerun x --tool builds`\n")
    print_markdown(console, md)
    out = buf.getvalue()
    assert f"correctness-1: {RERUN}" in out  # one line, exactly as typed
    assert "builds-1: kreview rerun x --tool builds" in out
    assert "Kernel review" in out and "`" not in out


def test_fenced_code_is_left_to_markdown() -> None:
    console, buf = _terminal(100)
    print_markdown(console, "```\n- `kreview review a`\n```\n")
    assert "- `kreview review a`" in buf.getvalue()  # code block content kept verbatim


def test_live_reporter_shows_count_tool_and_outcome() -> None:
    console, buf = _terminal(100)
    with LiveReporter(console) as live:
        live("reading the submission")
        live(ToolStarted("memcheck", 3, 9, "Triton sanitizer"))
        live(ToolFinished("memcheck", 3, 9, "1 fail, 2 pass", 4.25))
    out = buf.getvalue()
    assert "✗ [3/9] memcheck: 1 fail, 2 pass (4.2s)" in out or "✗ [3/9] memcheck: 1 fail, 2 pass (4.3s)" in out


def test_plain_reporter_and_quiet() -> None:
    buf = io.StringIO()
    with reporter(False, stream=buf) as say:
        assert isinstance(say, PlainReporter)
        say(ToolStarted("builds", 1, 2, "imports and runs"))
        say(ToolFinished("builds", 1, 2, outcome_summary(["pass", "unverified", "fail", "pass"]), 1.04))
    assert buf.getvalue().splitlines() == ["kreview: [1/2] builds started",
                                           "kreview: [1/2] builds: 1 fail, 1 unverified, 2 pass (1.0s)"]
    with reporter(True, stream=buf) as say:
        assert say is None
    assert outcome_summary([]) == "no evidence"


def test_error_messages_lose_the_validation_librarys_internals() -> None:
    from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

    from reviewer.cli.common import plain_message

    class _Cfg(BaseModel):
        model_config = ConfigDict(extra="forbid")
        fmt: str = "text"

        @field_validator("fmt")
        @classmethod
        def _known(cls, v: str) -> str:
            if v not in ("text", "json"):
                raise ValueError(f"{v!r} is not one of 'text', 'json'")
            return v

    try:
        _Cfg.model_validate({"fmt": "xml", "bogus": 1})
    except ValidationError as exc:
        out = plain_message(f"kreview.toml is not a valid kreview configuration:\n{exc}")
    assert "'xml' is not one of 'text', 'json'" in out and "Extra inputs are not permitted" in out
    for noise in ("errors.pydantic.dev", "Value error,", "[type=", "validation error for", "_Cfg"):
        assert noise not in out, (noise, out)
