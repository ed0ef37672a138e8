"""An on-disk response cache keyed by the exact request.

The key is the SHA-256 of the canonical JSON of the endpoint and the request as sent (model,
messages, response_format, temperature, seed, max_tokens): the same question to the same server
gets the same answer without a call, and any change to a prompt, the evidence or the model is a
miss. Entries hold the request and the reply, never a key or a header. A corrupt entry is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from reviewer.llm.client import ChatModel, ChatReply, ChatRequest


def cache_key(endpoint: str, request: ChatRequest) -> str:
    body = {"endpoint": endpoint, "request": request.model_dump(mode="json")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class ResponseCache:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatReply | None:
        path = self._path(key)
        try:
            data = json.loads(path.read_text())
            return ChatReply.model_validate(data["reply"])
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            return None

    def put(self, key: str, endpoint: str, request: ChatRequest, reply: ChatReply) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            entry = {"key": key, "endpoint": endpoint, "request": request.model_dump(mode="json"),
                     "reply": reply.model_dump(mode="json", exclude={"cached"})}
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w") as fh:
                json.dump(entry, fh, indent=1)
            os.replace(tmp, path)
        except OSError:
            return  # Rationale: a cache that cannot be written costs tokens, never the review


class CachedModel:
    """A ``ChatModel`` answering repeated requests from a ``ResponseCache``."""

    def __init__(self, inner: ChatModel, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache
        self.name = inner.name
        self.endpoint = inner.endpoint

    def complete(self, request: ChatRequest) -> ChatReply:
        key = cache_key(self.endpoint, request)
        hit = self.cache.get(key)
        if hit is not None:
            return hit.model_copy(update={"cached": True})
        reply = self.inner.complete(request)
        if reply.content.strip():
            self.cache.put(key, self.endpoint, request, reply)
        return reply
