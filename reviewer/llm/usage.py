"""Per-run token and cost accounting.

``calls`` counts requests answered by the server, ``cached_calls`` those answered from the response
cache; tokens are the server-reported tokens of the calls made in this run (a cached answer costs
none). ``cost_usd`` is set only when the price table has an entry for the model and every call
reported its usage; otherwise it is unknown (None), never a guessed number."""

from __future__ import annotations

import tomllib
from importlib import resources

from reviewer.llm.client import ChatReply
from reviewer.llm.settings import Price
from reviewer.core.models import LLMUsage


def builtin_prices() -> dict[str, Price]:
    text = resources.files("reviewer.llm").joinpath("prices.toml").read_text()
    return {k: Price.model_validate(v) for k, v in tomllib.loads(text).get("prices", {}).items()}


def price_for(model: str, table: dict[str, Price]) -> Price | None:
    if model in table:
        return table[model]
    prefixes = [k for k in table if model.startswith(k)]
    return table[max(prefixes, key=len)] if prefixes else None


class UsageMeter:
    def __init__(self, model: str, prices: dict[str, Price] | None = None) -> None:
        self.model = model
        self.price = price_for(model, {**builtin_prices(), **(prices or {})})
        self.calls = 0
        self.cached_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.unreported = 0

    def add(self, reply: ChatReply) -> None:
        if reply.cached:
            self.cached_calls += 1
            return
        self.calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        if not reply.usage_reported:
            self.unreported += 1

    def cost(self) -> float | None:
        if self.price is None or self.unreported:
            return None
        return round((self.prompt_tokens * self.price.input_per_mtok
                      + self.completion_tokens * self.price.output_per_mtok) / 1e6, 6)

    def record(self) -> LLMUsage:
        return LLMUsage(model=self.model, calls=self.calls, prompt_tokens=self.prompt_tokens,
                        completion_tokens=self.completion_tokens, cached_calls=self.cached_calls,
                        cost_usd=self.cost())
