"""``kreview``: the command line. Each command group is a module that registers on ``app``."""

from reviewer.cli import core  # noqa: F401 - registers review, signoff, show, probe
from reviewer.cli import pr  # noqa: F401 - registers diff, pr review, pr publish
from reviewer.cli.common import app


def main() -> None:
    app()


__all__ = ["app", "main"]
