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

from tests.e2e.web.conftest import STORE_CAST, add_fix, add_hostile_run

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
    # (the full listing starts collapsed: its cited lines of failing items are on the first screen)
    page.locator("details.srcfile > summary").first.click()
    cited = page.locator("details.srcfile table.source tr.cited")
    assert cited.count() >= 1
    assert "triton.jit" in cited.first.locator("td.code").inner_text()
    assert cited.first.evaluate("r => getComputedStyle(r).backgroundColor") != "rgba(0, 0, 0, 0)"
    # a plot: the error-vs-float64 chart is drawn, with the submission's bars
    chart = page.locator("#chart-error svg.plot")
    assert chart.is_visible() and chart.locator("rect.submission").count() >= 1
    assert chart.bounding_box()["width"] > 300
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
    assert page.locator("main > h1").inner_text().startswith("<script>window.__kreview_pwned = 2</script>")
    assert page.get_by_text("## not a heading <b>bold?</b>").count() >= 1
    assert "</textarea><script>" in page.locator("#draft").input_value()
    assert "<!-- kreview:state" in page.locator("#draft").input_value()
    assert page.locator("iframe").count() == 0 and page.locator("img").count() == 0
    # passing criteria start collapsed: open them, as a reviewer would, to reach the copy button
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.locator("button.copy").first.click()
    assert page.evaluate("() => window.__kreview_pwned") is None


def test_first_screen_is_the_verdict_the_failure_its_rerun_and_line(server, page) -> None:
    url, runs, run_id = server
    page.goto(f"{url}/runs/{run_id}")
    height = page.viewport_size["height"]

    def on_first_screen(locator) -> bool:
        box = locator.bounding_box()
        return box is not None and box["y"] + box["height"] <= height

    # verdict, the failed criterion, its item's rerun command with a copy button, and the cited line
    assert page.locator("#overall").inner_text() == "reject" and on_first_screen(page.locator("#overall"))
    focus = page.locator("#focus-correctness")
    assert focus.locator(".verdict").first.inner_text() == "fail" and on_first_screen(focus.locator("h2"))
    rerun = focus.locator(".rerun code").first
    assert rerun.inner_text().startswith("kreview rerun ") and on_first_screen(rerun)
    assert on_first_screen(focus.locator("button.copy").first)
    # the mismatch cites where the kernel computes what it stores: the tanh formula among those lines
    cited = focus.locator("table.excerpt tr.cited td.code")
    line = next(cited.nth(i) for i in range(cited.count()) if "tanh_u =" in cited.nth(i).inner_text())
    assert on_first_screen(line)
    # the unverified criteria are one line each, also on the first screen
    assert on_first_screen(page.locator("#focus-idle"))
    _shot(page, "workbench-review.png")
    # passing criteria start collapsed: their evidence is not drawn until opened
    builds = page.locator("details#crit-builds")
    assert builds.get_attribute("open") is None and not builds.locator("article.evidence").first.is_visible()
    assert page.locator("details#crit-correctness").get_attribute("open") is not None
    # a link into a collapsed section opens it
    page.locator("#passed-line a[href='#crit-builds']").click()
    assert builds.locator("article.evidence").first.is_visible()
    # evidence as tables of labelled rows, not a key/value dump
    facts = page.locator(f"#ev-{page.locator('#focus-correctness .focus-item code').first.inner_text()} table.facts")
    assert facts.count() >= 2
    labels = facts.first.locator("th").all_inner_texts()
    assert any("max abs err" in t for t in labels) and not any("_" in t for t in labels)


def test_a_verified_fix_is_a_coloured_diff_under_its_criterion_and_its_markup_is_text(server, page) -> None:
    url, runs, run_id = server
    got = add_fix(runs, run_id)
    page.goto(f"{url}/runs/{run_id}")
    fix = page.locator("#focus-correctness #fix-fix-1")
    assert fix.is_visible() and fix.locator("table.fixdiff caption").inner_text() == "submission.py"
    added, removed = fix.locator("tr.d-add"), fix.locator("tr.d-del")
    assert added.count() == 1 and removed.count() == 1
    assert added.locator("td.ln").nth(1).inner_text() == str(got["line"])
    assert removed.locator("td.ln").first.inner_text() == str(got["line"])
    code = added.locator("td.code").inner_text()
    assert STORE_CAST in code and "<script>window.__kreview_pwned = 6</script>" in code
    assert page.evaluate("() => window.__kreview_pwned") is None and fix.locator("script").count() == 0
    colour = "(el) => getComputedStyle(el).backgroundColor"
    assert added.evaluate(colour) == "rgb(230, 255, 236)" and removed.evaluate(colour) == "rgb(255, 235, 233)"
    assert fix.locator("ul.fixed-cases li").count() == len(got["fixed"])
    _shot(page, "workbench-fix.png")
    fix.locator(f"ul.fixed-cases a[href='#ev-{got['fixed'][0]}']").click()
    assert page.locator(f"#ev-{got['fixed'][0]}").is_visible()


def test_draft_preview_renders_markdown_and_never_raw_html(server, page) -> None:
    url, runs, run_id = server
    bad = add_hostile_run(runs, run_id, "20990101-000000-badbad")
    page.goto(f"{url}/runs/{bad}")
    preview = page.locator("#preview")
    # the stored draft, rendered by the server: its heading is a heading, its markup is text
    assert preview.locator("h1").inner_text() == "Draft"
    assert "</textarea><script>" in preview.inner_text()
    assert preview.locator("script, iframe, img").count() == 0
    # typing updates the preview (server-side rendering), tables and emphasis included, raw HTML as text
    page.locator("#draft").fill("## Added by the reviewer\n\n**bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                                "<img src=x onerror=\"window.__kreview_pwned=6\"> [link](javascript:alert(1))\n")
    page.wait_for_selector("#preview h2:has-text('Added by the reviewer')")
    assert preview.locator("strong").inner_text() == "bold" and preview.locator("table td").count() == 2
    assert preview.locator("img").count() == 0 and "<img src=x" in preview.inner_text()
    assert preview.locator("a[href^='javascript']").count() == 0
    assert page.evaluate("() => window.__kreview_pwned") is None
    page.locator("#signoff").scroll_into_view_if_needed()
    _shot(page, "workbench-draft-preview.png")


def test_signoff_buttons_are_disabled_while_signing(server, page) -> None:
    url, runs, run_id = server
    page.goto(f"{url}/runs/{run_id}")
    # hold the sign-off where the browser would wait for the server (a resume takes seconds): a listener
    # that runs after the page's own stops the form from leaving, so the state of the wait stays on screen
    page.evaluate("() => window.addEventListener('submit', e => e.preventDefault(), {once: true})")
    page.fill("#by", "Grace")
    page.click("#approve")
    assert page.locator("#approve").is_disabled() and page.locator("#reject").is_disabled()
    assert page.locator("#approve").inner_text() == "Signing…"
    assert "signing" in page.locator("#signing").inner_text()
    assert page.locator("#signoff-form").get_attribute("aria-busy") == "true"
    page.locator("#signoff").scroll_into_view_if_needed()
    _shot(page, "workbench-signing.png")
    # a second try sends nothing (the form is busy), then the held submission goes: the pressed button's
    # choice travels although disabled buttons are left out of a form's data
    sent = []
    page.on("request", lambda r: sent.append(r) if r.method == "POST" else None)
    page.evaluate("() => document.getElementById('signoff-form').requestSubmit()")
    assert sent == [] and json.loads((runs / run_id / "review.json").read_text())["status"] == "awaiting_signoff"
    page.evaluate("() => document.getElementById('signoff-form').submit()")
    page.wait_for_selector("#signed-message")
    assert page.locator("#status").inner_text() == "approved"
