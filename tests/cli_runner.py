"""The command line in-process (typer's CliRunner) for tests that check usage errors and help text:
wide, uncoloured output, and help boxes flattened so a test compares words."""

from __future__ import annotations

import re

from typer.testing import CliRunner, Result

from reviewer.cli import app

WIDE = {"COLUMNS": "240", "TERM": "dumb", "NO_COLOR": "1"}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env=WIDE)


def flat(text: str) -> str:
    """Help and errors are drawn in boxes; compare on the words."""
    return re.sub(r"[\s│╭╮╰╯─]+", " ", text)
