"""Asking for JSON that matches a pydantic model, and surviving a model that does not comply.

Protocol: request ``response_format`` ``json_schema`` (the schema is also in every prompt); if the
server refuses that (HTTP 400/422) fall back to ``json_object`` for the rest of the run. Parse and
validate the answer; on failure ask once more, quoting the validation error; if that fails too,
give up with a note. Nothing here raises for the model's or the server's behaviour: callers get
``Asked.value is None`` plus notes saying why, and degrade.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from reviewer.core.config import Structured
from reviewer.core.errors import KReviewError, LLMRejected
from reviewer.llm.client import ChatModel, ChatRequest
from reviewer.llm.prompts import load_prompt
from reviewer.llm.usage import UsageMeter

T = TypeVar("T", bound=BaseModel)
StructuredMode = Structured  # the modes, listed once (reviewer/core/config.py)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


@dataclass
class Exchange:
    request: dict[str, Any]
    reply: str | None
    error: str | None = None
    cached: bool = False


@dataclass
class Asked(Generic[T]):
    value: T | None
    notes: list[str] = field(default_factory=list)
    transcript: list[Exchange] = field(default_factory=list)


def schema_text(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema(), indent=1, sort_keys=True)


def parse_reply(text: str, schema: type[T]) -> tuple[T | None, str]:
    """The validated value, or None and why (in words the model can act on)."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    if not body.startswith("{") and "{" in body and "}" in body:
        body = body[body.index("{"): body.rindex("}") + 1]
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        return None, f"the answer is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    if not isinstance(data, dict):
        return None, f"the answer is JSON but a {type(data).__name__}, not an object"
    try:
        return schema.model_validate(data), ""
    except ValidationError as exc:
        errs = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:12])
        return None, f"the JSON does not match the schema: {errs}"


class StructuredCaller:
    def __init__(self, model: ChatModel, meter: UsageMeter, *,
                 structured: StructuredMode = "auto", temperature: float = 0.0) -> None:
        self.model = model
        self.meter = meter
        self.mode = "json_object" if structured == "json_object" else "json_schema"
        self.may_downgrade = structured == "auto"
        self.temperature = temperature
        self.on_exchange: Callable[[str, Asked], None] | None = None
        self.broken: str | None = None
        """Why the model is unusable for the rest of the run (timeout, unreachable, auth)."""
        """Called after each role's exchange (the transcript writer)."""

    def _format(self, schema: type[BaseModel]) -> dict[str, Any]:
        if self.mode == "json_schema":
            return {"type": "json_schema",
                    "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": False}}
        return {"type": "json_object"}

    def _send(self, messages: list[dict[str, str]], schema: type[BaseModel], asked: Asked) -> str | None:
        while True:
            req = ChatRequest(model=self.model.name, messages=messages, response_format=self._format(schema),
                              temperature=self.temperature)
            ex = Exchange(request=req.model_dump(mode="json"), reply=None)
            asked.transcript.append(ex)
            try:
                reply = self.model.complete(req)
            except LLMRejected as exc:
                ex.error = f"{exc.status}: {exc}"
                if self.mode == "json_schema" and self.may_downgrade:
                    asked.notes.append("the server refused response_format json_schema; using json_object "
                                       "with the schema in the prompt")
                    self.mode = "json_object"
                    continue
                asked.notes.append(f"the model server refused the request ({exc})")
                return None
            except KReviewError as exc:
                # Rationale: a timeout or an unreachable server after retries will repeat; asking the
                # next role too would only add minutes of waiting to the review.
                ex.error = self.broken = f"{exc.status}: {exc}"
                asked.notes.append(f"the model could not be used ({exc.status}: {exc})")
                return None
            except Exception as exc:  # noqa: BLE001 - a client bug must not end the review
                ex.error = self.broken = f"{type(exc).__name__}: {exc}"
                asked.notes.append(f"the model client failed ({type(exc).__name__}: {exc})")
                return None
            self.meter.add(reply)
            ex.reply, ex.cached = reply.content, reply.cached
            if reply.finish_reason == "length":
                asked.notes.append("the model's answer was cut off at its token limit")
            return reply.content

    def ask(self, messages: list[dict[str, str]], schema: type[T], *, role: str) -> Asked[T]:
        asked: Asked[T] = Asked(value=None)
        self._ask(asked, messages, schema, role)
        if self.on_exchange is not None:
            self.on_exchange(role, asked)
        return asked

    def _ask(self, asked: Asked[T], messages: list[dict[str, str]], schema: type[T], role: str) -> None:
        if self.broken is not None:
            asked.notes.append(f"{role}: skipped, the model failed earlier in this run ({self.broken[:200]})")
            return
        text = self._send(messages, schema, asked)
        if text is None:
            asked.notes.insert(0, f"{role}: no answer")
            return
        value, why = parse_reply(text, schema)
        if value is not None:
            asked.value = value
            return
        repair = load_prompt("repair").render(error=why, schema=schema_text(schema))
        retry = [*messages, {"role": "assistant", "content": text}, repair[-1]]
        text2 = self._send(retry, schema, asked)
        if text2 is None:
            asked.notes.insert(0, f"{role}: the first answer was unusable ({why}) and the retry got no answer")
            return
        value, why2 = parse_reply(text2, schema)
        if value is None:
            asked.notes.insert(0, f"{role}: the model's answer was unusable twice ({why}; then {why2})")
            return
        asked.value = value
        asked.notes.append(f"{role}: the first answer was unusable ({why}); the retry was valid")
        return
