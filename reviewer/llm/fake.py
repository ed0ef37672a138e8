"""A scripted chat model for tests and dry runs: a queue of answers, served in order.

Each queued item is the reply text (a str), a JSON-able value (dumped to text), an exception
instance (raised, e.g. ``LLMTimeout``), or a callable ``request -> any of those``. Every request
is recorded in ``requests`` so tests can assert on what the roles asked.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from reviewer.core.errors import LLMError, LLMRejected
from reviewer.llm.client import ChatReply, ChatRequest

Scripted = str | dict | list | BaseException | Callable[[ChatRequest], Any]


class ScriptedModel:
    def __init__(self, script: Iterable[Scripted] = (), *, name: str = "scripted", tokens_per_char: float = 0.25,
                 json_schema: bool = True) -> None:
        self.queue: deque[Scripted] = deque(script)
        self.requests: list[ChatRequest] = []
        self.name = name
        self.endpoint = "scripted://"
        self.tokens_per_char = tokens_per_char
        self.json_schema = json_schema

    def push(self, *items: Scripted) -> None:
        self.queue.extend(items)

    def complete(self, request: ChatRequest) -> ChatReply:
        self.requests.append(request)
        fmt = (request.response_format or {}).get("type")
        if fmt == "json_schema" and not self.json_schema:
            raise LLMRejected("the scripted server does not support response_format json_schema")
        if not self.queue:
            raise LLMError("the scripted model has no answer left")
        item = self.queue.popleft()
        if callable(item) and not isinstance(item, BaseException):
            item = item(request)
        if isinstance(item, BaseException):
            raise item
        text = item if isinstance(item, str) else json.dumps(item)
        prompt_chars = sum(len(m.get("content", "")) for m in request.messages)
        return ChatReply(content=text, model=self.name, finish_reason="stop",
                         prompt_tokens=int(prompt_chars * self.tokens_per_char),
                         completion_tokens=int(len(text) * self.tokens_per_char))
