"""The language model in the review loop (docs/llm.md).

Three roles, each a prompt in ``prompts/`` and a pydantic answer schema: the planner proposes probes
(run by tools/probes), the static reviewer reports span-anchored findings, the drafter writes the
assessment. The grounding check holds all of it; the rubric's verdicts stand.
"""

from __future__ import annotations

from reviewer.core.config import LLMSettings
from reviewer.core.errors import ConfigError
from reviewer.llm.agent import LLMDrafter
from reviewer.llm.cache import CachedModel, ResponseCache
from reviewer.llm.client import ChatModel, OpenAIChatModel
from reviewer.llm.fake import ScriptedModel
from reviewer.llm.settings import ResolvedLLM, resolve

__all__ = ["LLMDrafter", "ScriptedModel", "make_drafter", "make_model"]


def make_model(resolved: ResolvedLLM, *, http_client: object = None) -> ChatModel:
    model: ChatModel = OpenAIChatModel(
        model=resolved.model, base_url=resolved.base_url,
        api_key=resolved.api_key.get_secret_value() if resolved.api_key else None,
        timeout_s=resolved.timeout_s, max_retries=resolved.max_retries, backoff_s=resolved.backoff_s,
        http_client=http_client)
    if resolved.cache_dir is not None:
        model = CachedModel(model, ResponseCache(resolved.cache_dir))
    return model


def make_drafter(settings: LLMSettings, *, model: ChatModel | None = None) -> LLMDrafter:
    """The LLM drafter for ``settings`` (``--llm openai``); ``model`` replaces the client (tests)."""
    if model is not None:
        return LLMDrafter(model, structured=settings.structured, temperature=settings.temperature,
                          max_probes=settings.max_probes)
    if settings.provider != "openai":
        raise ConfigError(f"no LLM drafter for provider {settings.provider!r}")
    resolved = resolve(settings)
    return LLMDrafter(make_model(resolved), prices=resolved.prices, structured=resolved.structured,
                      temperature=resolved.temperature, max_probes=resolved.max_probes)
