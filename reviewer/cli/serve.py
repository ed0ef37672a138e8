"""``kreview serve``: the sign-off workbench, a small web app over the run store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from reviewer.cli.common import RunsDir, _guard, app, err, examples
from reviewer.core.config import default_runs_dir


@app.command(help="Serve the sign-off workbench: the queue, each run's evidence, plots and draft, and sign-off."
                  + examples("kreview serve",
                              "kreview serve --runs-dir .kreview/runs --port 9000"))
def serve(
    runs_dir: RunsDir = None,
    host: Annotated[str, typer.Option(help="address to bind; anything but loopback requires a token")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port")] = 8765,
    calibration: Annotated[list[Path] | None, typer.Option(
        help="a calibration output directory (holding calibration.json) to show (repeatable)")] = None,
) -> None:

    def go() -> None:
        from reviewer.core.errors import UsageError

        try:
            import uvicorn

            from reviewer.web.app import create_app
            from reviewer.web.security import is_loopback, new_token
        except ImportError as exc:
            raise UsageError(f"kreview serve needs the web extra ({exc.name} is missing)",
                             hint="pip install 'kernel-reviewer[web]'") from exc
        if not 0 < port < 65536:
            raise UsageError(f"--port must be 1..65535, not {port}")
        token = None if is_loopback(host) else new_token()
        where = (runs_dir or default_runs_dir()).resolve()
        web = create_app(where, host=host, port=port, token=token, calibrations=list(calibration or []))
        from reviewer.runstore import list_runs

        found = list_runs(where)  # index the store now, so the first page is not the one that parses every run
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}/"
        if token:
            err.print(f"[bold]kreview workbench[/] on {escape(url)} ({len(found)} runs in {escape(str(where))})", highlight=False)
            err.print("every request needs this token (shown once): open "
                      f"{escape(url)}?token={token}", highlight=False)
        else:
            err.print(f"[bold]kreview workbench[/] on {escape(url)} ({len(found)} runs in {escape(str(where))}; loopback only)",
                      highlight=False)
        uvicorn.run(web, host=host, port=port, log_level="warning", server_header=False)

    _guard(go)
