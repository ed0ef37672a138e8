"""The workbench in a real headless Chromium (Debian's ``chromium``, driven by Playwright through its
executable path): open the queue, open a review, see the highlighted source lines and a plot, edit the
draft, approve, and find the run signed by the CLI's ``kreview show`` in another process; a run whose
stored text is hostile shows it as text. Writes docs/img/workbench-*.png when KREVIEW_SCREENSHOTS=1."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.e2e.web.conftest import add_hostile_run

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("no chromium executable (apt-get install chromium)", allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api", reason="playwright (pip) is not installed")
uvicorn = pytest.importorskip("uvicorn")

from reviewer.web.app import create_app

ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
DOCS = Path(__file__).resolve().parents[3] / "docs" / "img"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(store):
    runs, run_id = store
    if os.environ.get("KREVIEW_SCREENSHOTS") == "1":  # a neutral folder name for the pictures in docs/
        demo = Path(tempfile.gettempdir()) / "kreview-demo"
        shutil.rmtree(demo, ignore_errors=True)
        shutil.copytree(runs, demo / "runs")
        runs = demo / "runs"
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(runs, port=port), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not srv.started and time.time() < deadline:
        time.sleep(0.05)
    assert srv.started, "the workbench did not start"
    yield f"http://127.0.0.1:{port}", runs, run_id
    srv.should_exit = True
    thread.join(10)


@pytest.fixture
def page():
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser.new_page(viewport={"width": 1280, "height": 900})
        finally:
            browser.close()


def _shot(page, name: str, **kw) -> None:
    if os.environ.get("KREVIEW_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS / name), **kw)


def test_review_edit_and_approve_in_chromium(server, page, tmp_path) -> None:
    url, runs, run_id = server
    page.goto(url + "/")
    link = page.locator("a.run-link", has_text=run_id)
    assert link.count() == 1
    assert page.locator("#awaiting").inner_text() == "1"
    _shot(page, "workbench-queue.png")
    link.click()
    page.wait_for_url(f"**/runs/{run_id}")
    assert page.locator("#overall").inner_text() == "reject"
    # the resources evidence cites the kernel's decorator line: highlighted, and it is the real line
    cited = page.locator("table.source tr.cited")
    assert cited.count() >= 1
    assert "triton.jit" in cited.first.locator("td.code").inner_text()
    assert cited.first.evaluate("r => getComputedStyle(r).backgroundColor") != "rgba(0, 0, 0, 0)"
    # a plot: the error-vs-float64 chart is drawn, with the submission's bars
    chart = page.locator("#chart-error svg.plot")
    assert chart.is_visible() and chart.locator("rect.submission").count() >= 1
    assert chart.bounding_box()["width"] > 300
    _shot(page, "workbench-review.png", full_page=False)
    page.locator("#plots").screenshot(path=str(tmp_path / "plots.png"))
    if os.environ.get("KREVIEW_SCREENSHOTS") == "1":
        shutil.copy(tmp_path / "plots.png", DOCS / "workbench-plots.png")
    # the submission's hostile comments are shown as text, and never ran
    assert page.get_by_text("<script>window.__kreview_pwned = 1</script>", exact=False).count() >= 1
    assert page.evaluate("() => window.__kreview_pwned") is None
    # edit the draft, approve with a name and a note
    draft = page.locator("#draft")
    draft.fill(draft.input_value() + "\nReviewed in the workbench: the tanh approximation is wrong here.\n")
    page.fill("#by", "Grace")
    page.fill("#note", "checked the evidence")
    page.click("#approve")
    page.wait_for_selector("#signed-message")
    assert page.locator("#status").inner_text() == "approved"
    assert "Grace" in page.locator("#signoff-record").inner_text()
    # the CLI, in another process, sees the same signed run
    env = {**os.environ, "KREVIEW_RUNS_DIR": str(runs)}
    shown = subprocess.run([sys.executable, "-m", "reviewer.cli", "show", run_id, "--format", "json"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False)
    assert shown.returncode == 0, shown.stderr
    final = json.loads(shown.stdout)
    assert final["status"] == "approved" and final["signoff"]["by"] == "Grace" and final["signoff"]["edited"]
    assert final["signoff"]["note"] == "checked the evidence"
    assert "Reviewed in the workbench" in final["draft"]["markdown"]
    # signing twice: the page has no form any more, and a replayed POST is refused with a message
    assert page.locator("#signoff-form").count() == 0


def test_hostile_stored_text_shows_as_text_in_chromium(server, page) -> None:
    url, runs, run_id = server
    bad = add_hostile_run(runs, run_id, "20990101-000000-badbad")
    page.goto(url + "/")
    assert page.get_by_text("<script>window.__kreview_pwned = 2</script>").count() >= 1
    page.goto(f"{url}/runs/{bad}")
    assert page.locator("h1").inner_text().startswith("<script>window.__kreview_pwned = 2</script>")
    assert page.get_by_text("## not a heading <b>bold?</b>").count() >= 1
    assert "</textarea><script>" in page.locator("#draft").input_value()
    assert "<!-- kreview:state" in page.locator("#draft").input_value()
    assert page.locator("iframe").count() == 0 and page.locator("img").count() == 0
    # passing criteria start collapsed: open them, as a reviewer would, to reach the copy button
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.locator("button.copy").first.click()
    assert page.evaluate("() => window.__kreview_pwned") is None
