"""The workbench app (Starlette + Jinja2): the queue, a run's review page, sign-off, calibrations.

Pages only read the run store; the one write is a sign-off, which goes through
``reviewer.api.signoff`` (the checkpoint resume the CLI uses), so a run signed here and one signed with
``kreview signoff`` are the same thing. No route runs or changes submission code.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from reviewer.core.errors import KReviewError, RunNotFound
from reviewer.runs import is_run_dir, read_review
from reviewer.runstore import RunSummary, list_runs
from reviewer.web.plots import charts_for
from reviewer.web.security import Guard, is_loopback, session_of
from reviewer.web.templating import environment
from reviewer.web.markdown import render_markdown_html
from reviewer.web.views import change_view, criteria_views, focus_views, source_files

_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
PAGE_SIZE = 100
NAME_LIMIT, NOTE_LIMIT, DRAFT_LIMIT = 200, 4000, 400_000


class Workbench:
    def __init__(self, runs_dir: Path, calibrations: list[Path]) -> None:
        self.runs_dir = Path(runs_dir)
        self.calibrations = [Path(c) for c in calibrations]
        self.env = environment()
        self.guard: Guard | None = None
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()

    # -- helpers --------------------------------------------------------------------------------------
    def render(self, request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        assert self.guard is not None
        csrf = self.guard.csrf_for(session_of(request))
        html = self.env.get_template(name).render(request=request, csrf=csrf, runs_dir=str(self.runs_dir),
                                                  calibrations=self.calibrations, **ctx)
        return HTMLResponse(html, status)

    def run_dir(self, ref: str, cal: int | None = None) -> Path:
        """A run by id or unique id prefix, only ever inside the runs directory (or a calibration's runs)."""
        if not _RUN_ID.match(ref):
            raise RunNotFound(f"{ref!r} is not a run id")
        if cal is not None:
            data = self._calibration(cal)
            for d in [*data.get("disagreements", []), *data.get("undecided", []), *data.get("degenerate_tasks", [])]:
                rd = d.get("run_dir")
                if rd and Path(rd).name == ref and (Path(rd) / "review.json").exists():
                    return Path(rd)
            raise RunNotFound(f"calibration {cal} has no run {ref!r}")
        exact = self.runs_dir / ref
        if is_run_dir(exact):
            return exact.resolve()
        matches = sorted(p for p in self.runs_dir.iterdir() if p.name.startswith(ref) and is_run_dir(p)) \
            if self.runs_dir.is_dir() else []
        if len(matches) == 1:
            return matches[0].resolve()
        raise RunNotFound(f"run id prefix {ref!r} matches {len(matches)} runs" if matches else f"no run {ref!r}")

    def lock(self, run_id: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(run_id, threading.Lock())

    def _calibration(self, i: int) -> dict:
        if not 0 <= i < len(self.calibrations):
            raise RunNotFound(f"no calibration {i}")
        path = self.calibrations[i]
        path = path / "calibration.json" if path.is_dir() else path
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise RunNotFound(f"calibration {path.name} unreadable: {type(exc).__name__}") from exc

    # -- pages ----------------------------------------------------------------------------------------
    async def queue(self, request: Request) -> Response:
        runs = await run_in_threadpool(list_runs, self.runs_dir)
        q = request.query_params
        filters = {k: q.get(k, "") for k in ("status", "verdict", "framework", "repository")}
        choices = {"status": sorted({r.status for r in runs}), "verdict": sorted({r.overall for r in runs if r.overall}),
                   "framework": sorted({r.framework for r in runs if r.framework}),
                   "repository": sorted({r.repository for r in runs if r.repository})}

        def keep(r: RunSummary) -> bool:
            if filters["status"] == "open":
                if r.status != "awaiting_signoff":
                    return False
            elif filters["status"] and r.status != filters["status"]:
                return False
            return ((not filters["verdict"] or r.overall == filters["verdict"])
                    and (not filters["framework"] or r.framework == filters["framework"])
                    and (not filters["repository"] or r.repository == filters["repository"]))

        shown = [r for r in runs if keep(r)]
        try:
            page = max(0, int(q.get("page", "0")))
        except ValueError:
            page = 0
        awaiting = sum(r.status == "awaiting_signoff" for r in runs)
        return self.render(request, "queue.html", runs=shown[page * PAGE_SIZE:(page + 1) * PAGE_SIZE], total=len(runs),
                           matching=len(shown), awaiting=awaiting, page=page, pages=(len(shown) - 1) // PAGE_SIZE + 1,
                           filters=filters, choices=choices)

    async def review_page(self, request: Request, *, message: str = "", status: int = 200,
                          draft_text: str | None = None) -> Response:
        ref = request.path_params["run_id"]
        cal = request.query_params.get("cal")
        try:
            run_dir = self.run_dir(ref, int(cal) if cal and cal.isdigit() else None)
            review = await run_in_threadpool(read_review, run_dir)
        except KReviewError as exc:
            return self.render(request, "error.html", 404, message=str(exc))
        if ref != review.run_id and not cal and request.method == "GET":
            return RedirectResponse(f"/runs/{review.run_id}", 303)
        draft = review.draft.markdown if review.draft else ""
        shown_draft = draft if draft_text is None else draft_text
        criteria, sources = criteria_views(review), source_files(review, run_dir)
        return self.render(request, "review.html", status, review=review, criteria=criteria, sources=sources,
                           focus=focus_views(review, criteria, sources), charts=charts_for(review),
                           run_dir=str(run_dir), change=change_view(run_dir), message=message,
                           draft_text=shown_draft, draft_html=render_markdown_html(shown_draft),
                           signed=request.query_params.get("signed") == "1", readonly=cal is not None)

    async def review_json(self, request: Request) -> Response:
        try:
            run_dir = self.run_dir(request.path_params["run_id"])
            return JSONResponse(json.loads((run_dir / "review.json").read_text()))
        except (KReviewError, OSError, ValueError) as exc:
            return JSONResponse({"error": str(exc)}, 404)

    async def signoff(self, request: Request) -> Response:
        from reviewer.api import signoff as do_signoff

        assert self.guard is not None
        form = await request.form()
        text = {k: str(form.get(k, "")) for k in ("csrf", "decision", "by", "note", "draft", "original")}
        if not self.guard.csrf_ok(request, text["csrf"]):
            return self.render(request, "error.html", 403,
                               message="the form's CSRF token is missing or stale: reload the page and sign again")
        ref = request.path_params["run_id"]
        draft = text["draft"].replace("\r\n", "\n")
        original = text["original"].replace("\r\n", "\n")
        by, note = text["by"].strip(), text["note"].strip()
        problem = ""
        if text["decision"] not in ("approve", "reject"):
            problem = "choose approve or reject"
        elif not by:
            problem = "a sign-off records who decided: give your name"
        elif len(by) > NAME_LIMIT or len(note) > NOTE_LIMIT or len(draft) > DRAFT_LIMIT:
            problem = "name, note or draft too long"
        if problem:
            return await self.review_page(request, message=problem, status=400, draft_text=draft)
        try:
            run_dir = self.run_dir(ref)
        except KReviewError as exc:
            return self.render(request, "error.html", 404, message=str(exc))
        edited = draft if draft.strip() and draft != original else None
        lock = self.lock(run_dir.name)
        if not lock.acquire(blocking=False):
            return await self.review_page(request, message="this run is being signed right now", status=409)
        try:
            review = await run_in_threadpool(do_signoff, str(run_dir), self.runs_dir, approve=text["decision"] == "approve",
                                             by=by, note=note, edited_markdown=edited)
        except KReviewError as exc:
            return await self.review_page(request, message=f"not signed: {exc}", status=409, draft_text=draft)
        finally:
            lock.release()
        return RedirectResponse(f"/runs/{review.run_id}?signed=1", 303)

    async def preview(self, request: Request) -> Response:
        """The draft being edited, as the HTML it will read as (the sign-off form's preview pane)."""
        assert self.guard is not None
        form = await request.form()
        if not self.guard.csrf_ok(request, str(form.get("csrf", ""))):
            return HTMLResponse("<p>the form's CSRF token is missing or stale: reload the page</p>", 403)
        draft = str(form.get("draft", "")).replace("\r\n", "\n")
        if len(draft) > DRAFT_LIMIT:
            return HTMLResponse("<p>the draft is too long to preview</p>", 413)
        return HTMLResponse(str(render_markdown_html(draft)))

    async def calibration_list(self, request: Request) -> Response:
        cals = []
        for i in range(len(self.calibrations)):
            try:
                cals.append((i, self._calibration(i), ""))
            except KReviewError as exc:
                cals.append((i, {}, str(exc)))
        return self.render(request, "calibrations.html", cals=cals)

    async def calibration_page(self, request: Request) -> Response:
        try:
            i = int(request.path_params["index"])
            cal = self._calibration(i)
        except (ValueError, KReviewError) as exc:
            return self.render(request, "error.html", 404, message=str(exc))
        from reviewer.web.calplots import calibration_charts

        def run_href(d: dict, evidence: str) -> str:
            name = Path(str(d.get("run_dir") or "")).name
            return f"/runs/{name}?cal={i}" + (f"#ev-{evidence}" if evidence else "")

        return self.render(request, "calibration.html", index=i, cal=cal, charts=calibration_charts(cal),
                           run_href=run_href)


def create_app(runs_dir: Path, *, host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
               calibrations: list[Path] | None = None) -> Any:
    """The ASGI app. ``token`` is required whenever ``host`` is not a loopback address."""
    if not is_loopback(host) and not token:
        raise ValueError("binding beyond loopback needs a token")
    wb = Workbench(runs_dir, calibrations or [])
    static = Path(__file__).parent / "static"
    app = Starlette(routes=[
        Route("/", wb.queue),
        Route("/runs/{run_id}", wb.review_page),
        Route("/runs/{run_id}/review.json", wb.review_json),
        Route("/runs/{run_id}/signoff", wb.signoff, methods=["POST"]),
        Route("/runs/{run_id}/preview", wb.preview, methods=["POST"]),
        Route("/calibrations", wb.calibration_list),
        Route("/calibrations/{index}", wb.calibration_page),
        Mount("/static", StaticFiles(directory=static), name="static"),
    ])
    app.state.workbench = wb
    guard = Guard(app, token=token, loopback=is_loopback(host))
    wb.guard = guard
    return guard
