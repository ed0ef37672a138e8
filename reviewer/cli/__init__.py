"""``kreview``: the command line. Each command group is a module that registers on ``app``."""
# ruff: noqa: F401 - each command module registers its commands on import

import reviewer.cli.audit as audit
import reviewer.cli.batch as batch
import reviewer.cli.calibrate as calibrate
import reviewer.cli.compare as compare
import reviewer.cli.core as core
import reviewer.cli.fix as fix
import reviewer.cli.init as init
import reviewer.cli.pr as pr
import reviewer.cli.runs as runs
import reviewer.cli.serve as serve
from reviewer.cli.common import app
from reviewer.cli.leave import leave


def main() -> None:
    try:
        app()
    except SystemExit as exc:
        leave(exc)
    leave(SystemExit(0))


__all__ = ["app", "main"]
