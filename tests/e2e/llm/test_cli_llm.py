"""``kreview review DIR --llm openai`` end to end: the installed CLI, the real openai client, and a
loopback server speaking the chat completions API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.kernelfiles import KERNELS, materialize
from tests.e2e.llm.support import FakeOpenAIServer, scripted_responder

KREVIEW = str(Path(sys.executable).with_name("kreview"))
KEY = "sk-cli-secret-4242"
# the tools these tests judge by, and the model's probes (tests/e2e/llm/test_llm_review.py says why)
ONLY = [a for t in ("builds", "correctness", "generality", "probes") for a in ("--only", t)]
# where a test judges only the model's calls (model, endpoint, request formats), not a verdict: the review
# still asks the three questions (source, planner, drafter) and runs the planner's probes; generality, the
# costliest tool, gives nothing such a test reads
ASKS = [a for t in ("builds", "correctness", "probes") for a in ("--only", t)]


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([KREVIEW, *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=600,
                          check=False)


def test_review_with_an_openai_compatible_server(tmp_path: Path) -> None:
    sub = materialize(KERNELS / "llm" / "assumes_contiguous.py", tmp_path / "sub")
    with FakeOpenAIServer(scripted_responder()) as srv:
        env = {"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": KEY, "KREVIEW_MODEL": "gpt-4o-mini"}
        args = ["review", str(sub), "--llm", "openai", "--format", "json", "--seed", "1234", "--no-signoff", *ONLY]
        first = run(args, env)
        assert first.returncode == 0, first.stderr[-3000:]
        second = run(args, env)
    r1, r2 = json.loads(first.stdout), json.loads(second.stdout)
    assert r1["draft"]["drafter"] == "llm:gpt-4o-mini" and r1["overall"] == "reject"
    assert {c["id"]: c["verdict"] for c in r1["criteria"]}["generality"] == "fail"
    u1, u2 = r1["llm"], r2["llm"]
    assert (u1["model"], u1["calls"], u1["cached_calls"]) == ("gpt-4o-mini", 3, 0)
    assert u1["prompt_tokens"] > 0 and u1["completion_tokens"] > 0
    expected = (u1["prompt_tokens"] * 0.15 + u1["completion_tokens"] * 0.60) / 1e6
    assert abs(u1["cost_usd"] - expected) < 1e-6
    # the second run asks the same questions: the response cache answers them (the drafter's prompt
    # carries measured durations, so it may miss)
    assert u2["cached_calls"] >= 2 and u2["calls"] + u2["cached_calls"] == 3
    assert all(h == f"Bearer {KEY}" for h in srv.auth_headers)
    stored = [p for d in (Path(r1["run_dir"]), tmp_path / "xdg-cache") for p in d.rglob("*") if p.is_file()]
    assert stored and not [p for p in stored if KEY.encode() in p.read_bytes()]


def test_model_and_endpoint_from_a_config_file(tmp_path: Path) -> None:
    sub = materialize(KERNELS / "llm" / "handles_strides.py", tmp_path / "sub")
    with FakeOpenAIServer(scripted_responder(reject_json_schema=False)) as srv:
        cfg = tmp_path / "kreview.toml"
        cfg.write_text(f'[llm]\nmodel = "local-llama"\nbase_url = "{srv.base_url}"\ncache = false\n')
        res = run(["review", str(sub), "--llm", "openai", "--user-config", str(cfg), "--format", "json", "--seed", "1",
                   "--no-signoff", *ASKS], {})
    assert res.returncode == 0, res.stderr[-3000:]
    r = json.loads(res.stdout)
    assert r["llm"]["model"] == "local-llama" and r["llm"]["calls"] == 3 and r["llm"]["cost_usd"] is None
    assert [x["request"]["body"]["response_format"]["type"] for x in srv.exchanges] == ["json_schema"] * 3
    assert [e["tool"] for e in r["evidence"]].count("probes") >= 1  # the planner's probes ran


def test_without_a_model_the_cli_says_so(tmp_path: Path) -> None:
    sub = materialize(KERNELS / "llm" / "handles_strides.py", tmp_path / "sub")
    res = run(["review", str(sub), "--llm", "openai", "--no-signoff"], {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert res.returncode == 2 and "bad_config" in res.stderr and "KREVIEW_MODEL" in res.stderr


def test_without_llm_the_offline_drafter_writes_the_draft(tmp_path: Path) -> None:
    sub = materialize(KERNELS / "llm" / "handles_strides.py", tmp_path / "sub")
    res = run(["review", str(sub), "--format", "json", "--seed", "1", "--no-signoff", *ONLY], {})
    r = json.loads(res.stdout)
    assert r["draft"]["drafter"] == "offline" and r["llm"]["calls"] == 0
    # the generality tool checks the strided layouts itself: no model needed to pass it
    assert {c["id"]: c["verdict"] for c in r["criteria"]}["generality"] == "pass"
