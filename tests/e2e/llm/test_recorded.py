"""Recorded chat-completions exchanges replayed through the real openai client (tests/e2e/llm/recording.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import LLMSettings
from reviewer.llm import make_drafter
from tests.kernelfiles import materialize
from tests.e2e.llm.recording import KERNEL_DIR, RECORDINGS, SEED, Replayer
from tests.e2e.llm.support import FakeOpenAIServer
from tests.e2e.llm.test_llm_review import TOOLS

FILES = sorted(RECORDINGS.glob("*.json"))


def headers_of(rec: dict) -> list[str]:
    return [k.lower() for ex in rec["exchanges"] for k in ex["request"]["headers"]]


def test_there_are_recordings() -> None:
    assert {p.stem for p in FILES} >= {"assumes_contiguous", "handles_strides"}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_recordings_hold_no_credentials(path: Path) -> None:
    text = path.read_text()
    rec = json.loads(text)
    assert "authorization" not in headers_of(rec) and "user-agent" in headers_of(rec)
    assert "bearer" not in text.lower() and "sk-" not in text and "api_key" not in text.lower()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_replaying_a_recorded_review(path: Path, tmp_path: Path, config) -> None:
    rec = json.loads(path.read_text())
    replay = Replayer(rec)
    sub = materialize(KERNEL_DIR / f"{rec['kernel']}.py", tmp_path / "sub")
    with FakeOpenAIServer(replay) as srv:
        settings = LLMSettings(provider="openai", model=rec["model"], base_url=srv.base_url, cache=False)
        # the tools whose evidence the recorded draft cites (builds, correctness, probes) and generality, which
        # the planner's probes stand beside: the other tools' evidence only lengthens prompts the replay
        # does not compare (tests/e2e/llm/test_llm_review.py says why; same seed, same evidence ids)
        rv = start_review(sub, config.model_copy(update={"seed": SEED, "only": TOOLS}), drafter=make_drafter(settings))
    assert replay.mismatches == [] and replay.queue == []
    assert rv.draft.drafter == f"llm:{rec['model']}"
    assert len(rv.draft.removed) == rec["grounding_removed"]
    ok = [ex["response"]["body"]["usage"] for ex in rec["exchanges"] if ex["response"]["status"] == 200]
    assert rv.llm.calls == len(ok) and rv.llm.cached_calls == 0
    assert rv.llm.prompt_tokens == sum(u["prompt_tokens"] for u in ok)
    assert rv.llm.completion_tokens == sum(u["completion_tokens"] for u in ok)
    assert any("refused response_format json_schema" in n for n in rv.draft.notes)
