"""The workbench over HTTP (no browser): the queue, the review page, sign-off through the checkpoint,
the guards (loopback Host, token, CSRF, Origin), escaping, and ``kreview runs`` / run-id prefixes."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient

from reviewer.web.app import create_app
from tests.e2e.web.conftest import STORE_CAST, add_fix, add_hostile_run

BASE = "http://127.0.0.1:8765"


def _client(runs: Path, base_url: str = BASE, **kw) -> TestClient:
    return TestClient(create_app(runs, **kw), base_url=base_url)


def _csrf(html: str) -> str:
    m = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert m, "the sign-off form carries a CSRF token"
    return m.group(1)


class _Result:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _cli(args: list[str], cwd: Path) -> _Result:
    """The real ``kreview`` command line, in process (the browser test uses a separate process)."""
    from typer.testing import CliRunner

    from reviewer.cli import app

    r = CliRunner().invoke(app, args, catch_exceptions=False)
    return _Result(r.exit_code, r.stdout, r.stderr)


def test_queue_lists_the_run_and_filters(store) -> None:
    runs, run_id = store
    c = _client(runs)
    page = c.get("/")
    assert page.status_code == 200
    assert f'href="/runs/{run_id}"' in page.text and "gelu_hostile" in page.text
    assert '<strong id="awaiting">1</strong>' in page.text
    assert run_id in c.get("/?verdict=reject&framework=triton&status=open").text
    assert run_id not in c.get("/?verdict=accept").text
    assert run_id not in c.get("/?framework=cuda").text


def test_review_page_shows_evidence_cited_source_and_plots(store) -> None:
    runs, run_id = store
    c = _client(runs)
    page = c.get(f"/runs/{run_id[:17]}", follow_redirects=True)  # an id prefix works and redirects to the id
    assert page.status_code == 200 and str(page.url).endswith(f"/runs/{run_id}")
    html = page.text
    review = json.loads((runs / run_id / "review.json").read_text())
    for crit in review["criteria"]:
        assert f'id="crit-{crit["id"]}"' in html
    failing = next(e for e in review["evidence"] if e["tool"] == "correctness" and e["outcome"] == "fail")
    assert f'id="ev-{failing["id"]}"' in html and 'class="copy"' in html
    # the resources evidence cites the @triton.jit line: that line is highlighted, with its citation
    span = next(s for e in review["evidence"] if e["tool"] == "resources" for s in e["spans"])
    row = re.search(rf'<tr id="src-{re.escape(span["file"])}-{span["start_line"]}" class="cited">.*?</tr>', html, re.DOTALL)
    assert row and "triton.jit" in row.group(0)
    assert 'id="chart-error"' in html and 'id="chart-resources"' in html
    assert "<svg" in html and "max abs error against float64" in html
    # hostile source text arrives as text
    assert "&lt;script&gt;window.__kreview_pwned = 1&lt;/script&gt;" in html
    assert "<script>window.__kreview_pwned" not in html
    assert "&lt;!-- kreview:state" in html


def test_a_verified_fix_shows_under_its_failed_criterion_as_an_escaped_diff(store) -> None:
    runs, run_id = store
    c = _client(runs)
    before = c.get(f"/runs/{run_id}").text
    assert 'class="fix"' not in before and "verified fix" not in before  # no fixes: the page is as it was
    got = add_fix(runs, run_id)
    html = c.get(f"/runs/{run_id}").text
    focus = re.split(r'<div class="focus |<ul class="focus-idle"', html.split('id="focus-correctness"')[1])[0]
    fix = re.search(r'<div class="fix" id="fix-fix-1">.*?</div>\n</div>', focus, re.DOTALL).group(0)
    assert "<caption>submission.py</caption>" in fix and "cast the stored value" in fix
    assert "origin rule;" in fix  # who proposed it (a model's patch reads origin llm:<model>)
    n = got["line"]
    assert re.search(rf'<tr class="d-del"><td class="ln">{n}</td><td class="ln"></td><td class="sign">-</td>'
                     r'<td class="code"><pre>\s*tl\.store\(out_ptr \+ offs, 0\.5 \* x', fix)
    added = re.search(rf'<tr class="d-add"><td class="ln"></td><td class="ln">{n}</td>.*?</tr>', fix).group(0)
    assert STORE_CAST in added
    assert "&lt;/pre&gt;&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;script&gt;window.__kreview_pwned = 6" in added
    assert "<script>window" not in html
    for e in got["fixed"]:
        assert f'<a href="#ev-{e}"><code>{e}</code></a>' in fix
    assert f"{len(got['fixed'])} failing case(s) now pass; 2 check(s) that passed still pass" in fix
    assert "verified on a patched copy by rerunning builds, correctness" in fix
    assert f"--run {run_id} --apply" in fix
    assert 'id="fix-' not in html.split('id="focus-correctness"')[0]  # only under the criterion it fixes


def test_hostile_stored_text_is_escaped_everywhere(store) -> None:
    runs, run_id = store
    bad = add_hostile_run(runs, run_id, "20990101-000000-badbad")
    c = _client(runs)
    for html in (c.get("/").text, c.get(f"/runs/{bad}").text):
        assert "<script>window" not in html and "<img src=x" not in html and "<iframe" not in html
        assert 'onclick="window' not in html
    html = c.get(f"/runs/{bad}").text
    assert "&lt;/textarea&gt;&lt;script&gt;" in html and "## not a heading &lt;b&gt;bold?&lt;/b&gt;" in html
    assert "script-src 'self'" in c.get(f"/runs/{bad}").headers["content-security-policy"]


def test_signoff_on_the_page_is_the_cli_signoff_and_twice_is_refused(store, tmp_path) -> None:
    runs, run_id = store
    c = _client(runs)
    html = c.get(f"/runs/{run_id}").text
    csrf = _csrf(html)
    original = json.loads((runs / run_id / "review.json").read_text())["draft"]["markdown"]
    edited = original.replace("REJECT", "REJECT (edited on the page)", 1)
    r = c.post(f"/runs/{run_id}/signoff", data={"csrf": csrf, "decision": "reject", "by": "Ada", "note": "wrong GELU",
                                                 "draft": edited, "original": original}, follow_redirects=False)
    assert r.status_code == 303, r.text
    shown = _cli(["show", run_id[:18], "--runs-dir", str(runs), "--format", "json"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    final = json.loads(shown.stdout)
    assert final["status"] == "rejected" and final["signoff"]["by"] == "Ada" and final["signoff"]["edited"]
    assert "edited on the page" in final["draft"]["markdown"]
    again = c.post(f"/runs/{run_id}/signoff", data={"csrf": csrf, "decision": "approve", "by": "Bob",
                                                     "draft": edited, "original": original})
    assert again.status_code == 409 and "not awaiting sign-off" in again.text
    cli_again = _cli(["signoff", run_id, "--approve", "--by", "Bob", "--runs-dir", str(runs)], tmp_path)
    assert cli_again.returncode == 2 and "not awaiting sign-off" in cli_again.stderr
    assert json.loads((runs / run_id / "review.json").read_text())["signoff"]["by"] == "Ada"


def test_draft_preview_is_rendered_on_the_server_without_raw_html(store) -> None:
    runs, run_id = store
    c = _client(runs)
    html = c.get(f"/runs/{run_id}").text
    assert '<div class="preview" id="preview"' in html and "<h1>Kernel review:" in html  # the stored draft
    csrf = _csrf(html)
    draft = "## Fix\n\n*tanh* is wrong\n\n<script>window.x=1</script>\n\n[a](javascript:alert(1))\n"
    r = c.post(f"/runs/{run_id}/preview", data={"csrf": csrf, "draft": draft})
    assert r.status_code == 200
    assert "<h2>Fix</h2>" in r.text and "<em>tanh</em>" in r.text
    assert "<script>" not in r.text and "&lt;script&gt;" in r.text and 'href="javascript' not in r.text
    assert c.post(f"/runs/{run_id}/preview", data={"draft": draft}).status_code == 403
    assert c.post(f"/runs/{run_id}/preview", data={"csrf": csrf, "draft": "x" * 400_001}).status_code == 413
    assert json.loads((runs / run_id / "review.json").read_text())["status"] == "awaiting_signoff"


def test_forms_need_csrf_and_same_origin(store) -> None:
    runs, run_id = store
    c = _client(runs)
    csrf = _csrf(c.get(f"/runs/{run_id}").text)
    form = {"decision": "approve", "by": "Mallory", "draft": "", "original": ""}
    assert c.post(f"/runs/{run_id}/signoff", data=form).status_code == 403
    assert c.post(f"/runs/{run_id}/signoff", data={**form, "csrf": "0" * 64}).status_code == 403
    r = c.post(f"/runs/{run_id}/signoff", data={**form, "csrf": csrf}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    other = _client(runs)  # another browser: its own session, so this token is not valid there
    other.get("/")
    assert other.post(f"/runs/{run_id}/signoff", data={**form, "csrf": csrf}).status_code == 403
    assert json.loads((runs / run_id / "review.json").read_text())["status"] == "awaiting_signoff"


def test_loopback_refuses_other_hosts_and_non_loopback_needs_the_token(store) -> None:
    runs, run_id = store
    assert _client(runs, base_url="http://attacker.example:8765").get("/").status_code == 421
    with pytest.raises(ValueError):
        create_app(runs, host="0.0.0.0")
    c = TestClient(create_app(runs, host="0.0.0.0", token="s3cret-token"), base_url="http://10.0.0.5:8765")
    assert c.get("/").status_code == 401
    assert c.get(f"/runs/{run_id}").status_code == 401
    assert c.get("/", headers={"authorization": "Bearer wrong"}).status_code == 401
    assert c.get("/", headers={"authorization": "Bearer s3cret-token"}).status_code == 200
    r = c.get("/?token=s3cret-token", follow_redirects=False)
    assert r.status_code == 303 and "token" not in r.headers["location"]
    assert c.get("/").status_code == 200  # the cookie now carries it


def test_unknown_and_malformed_run_ids(store) -> None:
    runs, _ = store
    c = _client(runs)
    assert c.get("/runs/nope").status_code == 404
    assert c.get("/runs/..%2F..%2Fetc").status_code == 404
    assert c.delete("/").status_code == 405


def test_runs_command_lists_prefixes_and_prunes(store, tmp_path) -> None:
    runs, run_id = store
    (runs / "20000101-000000-dead00").mkdir()
    (runs / "20000101-000000-dead00" / "checkpoint.sqlite").write_bytes(b"")  # a run that never reached a draft
    out = _cli(["runs", "--runs-dir", str(runs)], tmp_path)
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0].split()
    assert first[:3] == [run_id, "awaiting_signoff", "reject"]
    # the column names go to stderr, so stdout stays one run a line for scripts
    assert out.stderr.splitlines()[0].split() == ["run", "status", "verdict", "age", "backend", "submission"]
    assert "incomplete" in out.stdout
    listed = json.loads(_cli(["runs", "--runs-dir", str(runs), "--format", "json"], tmp_path).stdout)
    assert {r["run_id"] for r in listed} == {run_id, "20000101-000000-dead00"}
    pruned = _cli(["runs", "--runs-dir", str(runs), "--prune"], tmp_path)
    assert pruned.returncode == 0 and "removed 20000101-000000-dead00" in pruned.stdout
    assert not (runs / "20000101-000000-dead00").exists() and (runs / run_id).exists()  # awaiting sign-off stays
    # a prefix shared by two runs is refused clearly, a unique one resolves
    add_hostile_run(runs, run_id, run_id[:-1] + ("0" if run_id[-1] != "0" else "1"))
    amb = _cli(["show", run_id[:-1], "--runs-dir", str(runs)], tmp_path)
    assert amb.returncode == 2 and "matches 2 runs" in amb.stderr
    assert _cli(["show", run_id, "--runs-dir", str(runs), "--format", "json"], tmp_path).returncode == 0
    # probe takes a run id (prefix) and reruns an evidence item on the submission that run reviewed
    review = json.loads((runs / run_id / "review.json").read_text())
    item = next(e for e in review["evidence"] if e["tool"] == "correctness" and e["outcome"] == "fail")
    words = shlex.split(item["rerun"])
    case = words[words.index("--case") + 1]
    probe = _cli(["rerun", run_id, "--runs-dir", str(runs), "--tool", "correctness", "--case", case, "--format", "json"],
                 tmp_path)
    assert probe.returncode == 1, probe.stderr  # the item still fails
    again = json.loads(probe.stdout)[0]
    assert again["outcome"] == "fail"
    assert again["result"]["comparison"]["outputs"][0]["mismatches"] == \
        item["result"]["comparison"]["outputs"][0]["mismatches"]
    assert _cli(["rerun", "19990101", "--runs-dir", str(runs)], tmp_path).returncode == 2


def test_calibration_pages_tables_matrices_and_linked_disagreements(store, tmp_path) -> None:
    from reviewer.calibrate.metrics import criterion_agreement, overall_agreement
    from reviewer.calibrate.report import Calibration, Disagreement

    runs, run_id = store
    crit = criterion_agreement("correctness", [("fail", "fail"), ("pass", "fail"), ("pass", "pass"), ("fail", "unverified")])
    cal = Calibration(eval_set="sets/<planted>", cases=4, malformed=[], errors=[], criteria=[crit],
                      overall=overall_agreement([("reject", "reject"), ("accept", "reject"), ("accept", "accept"),
                                                 ("reject", "needs_human")]),
                      disagreements=[Disagreement(case="case_<b>2</b>", criterion="correctness", human="pass",
                                                  reviewer="fail", summary="mismatch", evidence=["correctness-1"],
                                                  run_dir=str(runs / run_id))])
    out = tmp_path / "cal"
    out.mkdir()
    (out / "calibration.json").write_text(cal.model_dump_json())
    c = _client(runs, calibrations=[out])
    assert 'href="/calibrations/0"' in c.get("/calibrations").text
    html = c.get("/calibrations/0").text
    assert "sets/&lt;planted&gt;" in html and "case_&lt;b&gt;2&lt;/b&gt;" in html
    # per-criterion table, confusion matrix with the off-diagonal cell, agreement and kappa on separate charts
    assert '<table class="verdicts" id="criteria">' in html and '<caption>correctness</caption>' in html
    assert 'id="chart-accuracy"' in html and 'id="chart-kappa"' in html
    matrix = re.search(r"<caption>correctness</caption>.*?</table>", html, re.DOTALL).group(0)
    assert re.search(r"<th>pass</th>.*?<td class=\"off\">1</td>", matrix, re.DOTALL)
    # the disagreement links to its run's page, which opens read-only
    link = f'/runs/{run_id}?cal=0'
    assert f'href="{link}"' in html and f'href="{link}#ev-correctness-1"' in html
    page = c.get(link)
    assert page.status_code == 200 and 'id="signoff-form"' not in page.text and 'id="ev-correctness-1"' in page.text
    # the standalone report.html is the same page, its links pointing at the runs' drafts
    from reviewer.calibrate.report import to_html

    report = to_html(cal)
    assert '<caption>correctness</caption>' in report and 'id="chart-kappa"' in report and "<script" not in report
    assert f'href="{(runs / run_id / "draft.md").as_uri()}"' in report and "case_&lt;b&gt;2&lt;/b&gt;" in report


def test_a_pull_request_run_shows_its_diff_with_comments_on_changed_lines(store, tmp_path) -> None:
    from reviewer.pr.gitdiff import changed_files, open_repo, resolve
    from reviewer.pr.models import PlannedComment, ReviewTarget
    from reviewer.pr.record import keep_change
    from tests.e2e.pr.gitrepo import CORRECT, RAISES, REFERENCE, Repo

    runs, run_id = store
    r = Repo(tmp_path / "repo")
    r.commit("base", {"k/reference.py": REFERENCE, "k/submission.py": CORRECT, "other/x.py": "a\n"})
    r.commit("head", {"k/submission.py": RAISES, "other/x.py": "b\n"})
    repo = open_repo(r.root)
    base, head = resolve(repo, "main~1"), resolve(repo, "main")
    comment = PlannedComment(fingerprint="f", path="k/submission.py", line=8, rank=0, target="k",
                             body="builds fails here: <RuntimeError> raised")
    keep_change(runs / run_id, ReviewTarget(dir="k", name="k", in_base=True, in_head=True),
                changed_files(repo, base, head), base, head, [comment])
    html = _client(runs).get(f"/runs/{run_id}").text
    section = re.search(r'<section id="change">.*?</section>', html, re.DOTALL).group(0)
    assert "k/submission.py" in section and "other/x.py" not in section  # only the target's files
    row = re.search(r'<tr class="d-add commented"><td class="ln"></td><td class="ln">8</td>.*?</tr>', section, re.DOTALL)
    assert row and "raise RuntimeError" in row.group(0) and "&lt;RuntimeError&gt; raised" in row.group(0)
    assert '<tr class="d-del"><td class="ln">8</td>' in section  # the replaced line, old side


def test_kreview_serve_beyond_loopback_prints_a_token_once_and_requires_it(store, tmp_path) -> None:
    import os
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    runs, run_id = store
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "reviewer.cli", "serve", "--runs-dir", str(runs), "--host", "0.0.0.0",
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "400"}, cwd=tmp_path)
    try:
        lines = []
        deadline = time.time() + 120
        while time.time() < deadline and not any("token=" in ln for ln in lines):
            lines.append(proc.stderr.readline())
        token = re.search(r"token=([A-Za-z0-9_-]+)", "".join(lines)).group(1)
        url = f"http://127.0.0.1:{port}/runs/{run_id}"
        for _ in range(100):
            try:
                urllib.request.urlopen(url)
            except urllib.error.HTTPError as exc:
                assert exc.code == 401
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("the workbench never answered")
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(req) as r:
            assert r.status == 200 and run_id in r.read().decode()
    finally:
        proc.terminate()
        proc.wait(30)
    assert "".join(lines).count(token) == 1


def test_plots_survive_infinite_errors_and_odd_search_records(store) -> None:
    runs, run_id = store
    data = json.loads((runs / run_id / "review.json").read_text())
    ev = next(e for e in data["evidence"] if (e["result"].get("error_budget") or {}).get("outputs"))
    ev["result"]["error_budget"]["outputs"][0]["sub_max_err"] = float("inf")
    ev["result"]["error_budget"]["outputs"].append({"path": "1", "sub_max_err": float("nan"), "ref_max_err": 0.0})
    data["evidence"].append({**ev, "id": "generality-9", "tool": "generality", "result": {"search": {
        "axis": "sizes", "tried": [{"config": {"n": 1, "m": 2}, "verdict": "fail"}, {"config": {"n": True, "m": "x"}},
                                   {"config": {"n": 0, "m": 5}, "verdict": "pass", "note": "<b>zero</b>"}, "junk"]}}})
    (runs / run_id / "review.json").write_text(json.dumps(data))
    html = _client(runs).get(f"/runs/{run_id}").text
    assert 'id="chart-error"' in html and 'id="chart-generality-9"' in html
    assert "&lt;b&gt;zero&lt;/b&gt;" in html and "<b>zero</b>" not in html


def test_kept_sources_stay_inside_the_runs_source_folder(tmp_path) -> None:
    from reviewer.runs import keep_sources

    root, run = tmp_path / "sub", tmp_path / "run"
    root.mkdir()
    run.mkdir()
    (root / "submission.py").write_text("x = 1\n")
    (tmp_path / "secret.txt").write_text("not the submission's\n")
    keep_sources(run, root, ["submission.py", "../secret.txt", "/etc/passwd", "../sub/submission.py", "nope.py"])
    assert sorted(str(p.relative_to(run)) for p in run.rglob("*")) == ["source", "source/submission.py"]
