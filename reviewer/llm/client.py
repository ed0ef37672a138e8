"""The chat-model interface and its one real implementation: the ``openai`` client against any
OpenAI-compatible endpoint (hosted, vLLM, llama.cpp server, Ollama).

A ``ChatModel`` takes a ``ChatRequest`` (exactly what is sent, so it can key the cache) and returns
a ``ChatReply`` or raises an ``LLMError`` with a stable status: ``llm_timeout`` after the retries,
``llm_rejected`` when the server refuses the request itself (400/422: an unsupported
``response_format``, a context overflow), ``llm_error`` otherwise.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.errors import LLMError, LLMRejected, LLMTimeout


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    messages: list[dict[str, str]]
    response_format: dict[str, Any] | None = None
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int | None = None


class ChatReply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str
    model: str = ""
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_reported: bool = True
    cached: bool = False
    attempts: int = Field(1, ge=1)


class ChatModel(Protocol):
    name: str
    endpoint: str
    """What identifies the server in the cache key (its base URL)."""

    def complete(self, request: ChatRequest) -> ChatReply: ...


# Rationale: the no-key placeholder: local servers ignore Authorization, but the client insists on one.
NO_KEY = "not-needed"
# Rationale: retry-after headers from a hosted API can ask for minutes; a review should not stall on one.
MAX_BACKOFF_S = 30.0


class OpenAIChatModel:
    """``openai.OpenAI().chat.completions.create`` with our own retry loop (the client's is off), so
    the backoff is explicit, recorded in ``ChatReply.attempts`` and testable."""

    def __init__(self, *, model: str, base_url: str | None, api_key: str | None, timeout_s: float,
                 max_retries: int, backoff_s: float = 1.0, http_client: Any = None) -> None:
        import openai

        kwargs: dict[str, Any] = {"api_key": api_key or NO_KEY, "timeout": timeout_s, "max_retries": 0}
        if base_url:
            kwargs["base_url"] = base_url
        if http_client is not None:
            kwargs["http_client"] = http_client
        self._openai = openai
        self._client = openai.OpenAI(**kwargs)
        self.name = model
        self.endpoint = str(self._client.base_url)
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._sleep = time.sleep

    def _send(self, request: ChatRequest) -> Any:
        kwargs: dict[str, Any] = {"model": request.model, "messages": request.messages,
                                  "temperature": request.temperature}
        if request.response_format is not None:
            kwargs["response_format"] = request.response_format
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.max_tokens is not None:
            kwargs["max_tokens"] = request.max_tokens
        return self._client.chat.completions.create(**kwargs)

    def _delay(self, attempt: int, exc: Exception) -> float:
        delay = self.backoff_s * (2 ** attempt)
        response = getattr(exc, "response", None)
        after = response.headers.get("retry-after") if response is not None else None
        if after:
            try:
                delay = max(delay, float(after))
            except ValueError:
                pass
        return min(delay, MAX_BACKOFF_S)

    def complete(self, request: ChatRequest) -> ChatReply:
        oa = self._openai
        transient = (oa.APIConnectionError, oa.RateLimitError, oa.InternalServerError, oa.ConflictError)
        attempt = 0
        while True:
            try:
                resp = self._send(request)
                break
            except (oa.BadRequestError, oa.UnprocessableEntityError) as exc:
                raise LLMRejected(f"the server rejected the request: {_message(exc)}") from exc
            except transient as exc:
                if attempt >= self.max_retries:
                    kind = LLMTimeout if isinstance(exc, oa.APITimeoutError) else LLMError
                    raise kind(f"{type(exc).__name__} after {attempt + 1} attempt(s): {_message(exc)}") from exc
                self._sleep(self._delay(attempt, exc))
                attempt += 1
            except oa.OpenAIError as exc:
                raise LLMError(f"{type(exc).__name__}: {_message(exc)}") from exc
        if not getattr(resp, "choices", None):
            raise LLMError("the server answered with no choices")
        choice = resp.choices[0]
        usage = getattr(resp, "usage", None)
        return ChatReply(content=(choice.message.content or ""), model=str(getattr(resp, "model", "") or ""),
                         finish_reason=choice.finish_reason,
                         prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                         completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                         usage_reported=usage is not None, attempts=attempt + 1)


def _message(exc: Exception) -> str:
    return " ".join(str(getattr(exc, "message", None) or exc).split())[:400]
