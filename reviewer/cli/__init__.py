"""``kreview``: the command line. Each command group is a module that registers on ``app``."""

from reviewer.cli import batch, calibrate, compare, core, init, pr, runs, serve  # noqa: F401 - each module registers its commands
from reviewer.cli.common import app


def main() -> None:
    app()


__all__ = ["app", "main"]
