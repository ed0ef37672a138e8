"""Structured output against a scripted model: every way a model can misbehave ends in a value or a
visible note, never an exception."""

from __future__ import annotations

import json

import pytest

from reviewer.core.errors import LLMError, LLMTimeout
from reviewer.llm.client import ChatReply, ChatRequest
from reviewer.llm.fake import ScriptedModel
from reviewer.llm.schemas import StaticReviewOut
from reviewer.llm.structured import StructuredCaller, parse_reply
from reviewer.llm.usage import UsageMeter

GOOD = {"findings": [{"category": "memory_access", "message": "unmasked load",
                      "span": {"file": "submission.py", "start_line": 3, "end_line": 3, "quote": "tl.load(p)"}}]}
BAD_CATEGORY = {"findings": [{"category": "vibes", "message": "m",
                              "span": {"file": "submission.py", "start_line": 3, "end_line": 3, "quote": "q"}}]}
MESSAGES = [{"role": "system", "content": "You review kernels."}, {"role": "user", "content": "Review this kernel."}]


def ask(*script, structured="auto", json_schema=True):
    model = ScriptedModel(script, json_schema=json_schema)
    meter = UsageMeter("scripted")
    caller = StructuredCaller(model, meter, structured=structured)
    return caller.ask(MESSAGES, StaticReviewOut, role="static reviewer"), model, meter, caller


def test_good_output_is_validated_and_metered() -> None:
    asked, model, meter, _ = ask(GOOD)
    assert asked.value is not None and asked.value.findings[0].category == "memory_access"
    assert asked.notes == []
    assert meter.calls == 1 and meter.prompt_tokens > 0 and meter.completion_tokens > 0
    fmt = model.requests[0].response_format
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"]["title"] == "StaticReviewOut"


def test_invalid_json_is_retried_once_with_the_error() -> None:
    asked, model, meter, _ = ask("{not json", GOOD)
    assert asked.value is not None
    assert len(model.requests) == 2 and meter.calls == 2
    retry = model.requests[1].messages
    assert retry[-2] == {"role": "assistant", "content": "{not json"}
    assert "not valid JSON" in retry[-1]["content"] and '"StaticReviewOut"' in retry[-1]["content"]
    assert any("retry was valid" in n for n in asked.notes)


def test_schema_violation_twice_gives_up_with_a_note() -> None:
    asked, model, _, _ = ask(BAD_CATEGORY, {"findings": "none"})
    assert asked.value is None and len(model.requests) == 2
    assert "unusable twice" in asked.notes[0]
    assert "findings.0.category" in asked.notes[0] and "findings: Input should be a valid list" in asked.notes[0]


def test_a_json_array_is_not_an_answer() -> None:
    asked, _, _, _ = ask([1, 2], "[]")
    assert asked.value is None and "not an object" in asked.notes[0]


def test_fenced_and_chatty_json_is_accepted() -> None:
    assert parse_reply("```json\n" + json.dumps(GOOD) + "\n```", StaticReviewOut)[0] is not None
    assert parse_reply("Here you go: " + json.dumps(GOOD) + " Hope it helps.", StaticReviewOut)[0] is not None


def test_json_schema_refused_falls_back_to_json_object_for_the_run() -> None:
    asked, model, _, caller = ask(GOOD, GOOD, json_schema=False)
    assert asked.value is not None
    assert [r.response_format["type"] for r in model.requests] == ["json_schema", "json_object"]
    assert any("json_object" in n for n in asked.notes)
    again = caller.ask(MESSAGES, StaticReviewOut, role="static reviewer")
    assert again.value is not None and model.requests[-1].response_format == {"type": "json_object"}


def test_timeout_gives_no_value_and_a_note() -> None:
    asked, _, meter, _ = ask(LLMTimeout("APITimeoutError after 3 attempt(s)"))
    assert asked.value is None and meter.calls == 0
    assert asked.notes[0] == "static reviewer: no answer" and "llm_timeout" in asked.notes[1]


def test_timeout_on_the_retry_gives_up_with_a_note() -> None:
    asked, _, _, _ = ask("nope", LLMTimeout("slow"))
    assert asked.value is None and "retry got no answer" in asked.notes[0]


def test_an_unexpected_client_exception_never_escapes() -> None:
    asked, _, _, _ = ask(RuntimeError("boom"))
    assert asked.value is None and any("RuntimeError: boom" in n for n in asked.notes)


def test_an_exhausted_script_is_an_llm_error() -> None:
    asked, _, _, _ = ask()
    assert asked.value is None and any("llm_error" in n for n in asked.notes)
    with pytest.raises(LLMError) as exc:
        ScriptedModel().complete(ChatRequest(model="m", messages=MESSAGES))
    assert exc.value.status == "llm_error"


def test_cached_replies_count_apart_from_calls() -> None:
    meter = UsageMeter("gpt-4o-mini")
    meter.add(ChatReply(content="{}", prompt_tokens=1_000_000, completion_tokens=1_000_000))
    meter.add(ChatReply(content="{}", prompt_tokens=500, completion_tokens=500, cached=True))
    rec = meter.record()
    assert (rec.calls, rec.cached_calls, rec.prompt_tokens, rec.completion_tokens) == (1, 1, 1_000_000, 1_000_000)
    assert rec.cost_usd == 0.75  # gpt-4o-mini list price: 0.15 + 0.60 per million tokens


def test_cost_is_unknown_without_a_price_or_without_reported_usage() -> None:
    assert UsageMeter("my-local-model").record().cost_usd is None
    dated = UsageMeter("gpt-4o-mini-2024-07-18")
    assert dated.price is not None and dated.price.input_per_mtok == 0.15  # longest prefix, not gpt-4o
    dated.add(ChatReply(content="{}", usage_reported=False))
    assert dated.record().cost_usd is None


def test_after_a_timeout_the_other_roles_are_skipped_not_waited_for() -> None:
    first, model, _, caller = ask(LLMTimeout("APITimeoutError after 3 attempt(s)"), GOOD)
    assert first.value is None
    again = caller.ask(MESSAGES, StaticReviewOut, role="planner")
    assert again.value is None and len(model.requests) == 1
    assert again.notes == [("planner: skipped, the model failed earlier in this run (llm_timeout: APITimeoutError "
                            "after 3 attempt(s))")]
