"""Where the model, the endpoint and the key come from.

Precedence, highest first: a field set explicitly in ``LLMSettings`` (the CLI's ``--model``), the
environment (``KREVIEW_MODEL``, and the openai client's own ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``),
the ``[llm]`` table of the config file, then the defaults. The config file is ``LLMSettings.config_file``
(``kreview review --config``), else ``$KREVIEW_CONFIG``, else ``$XDG_CONFIG_HOME/kreview/config.toml``
(``~/.config/kreview/config.toml``) when it exists.

The API key is resolved here and handed to the client only: it is never part of ``ReviewConfig``
(which is stored in the run's checkpoint), of the cache key, or of any record.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from reviewer.core.config import LLMSettings
from reviewer.core.errors import ConfigError


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


class FileLLM(BaseModel):
    """The ``[llm]`` table of the config file."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    base_url: str | None = None
    api_key: SecretStr | None = None
    api_key_env: str | None = None
    """Name of an environment variable holding the key (keeps the key itself out of the file)."""
    timeout_s: float | None = Field(None, gt=0)
    max_retries: int | None = Field(None, ge=0, le=10)
    backoff_s: float | None = Field(None, ge=0)
    structured: Literal["auto", "json_schema", "json_object"] | None = None
    cache: bool | None = None
    cache_dir: Path | None = None
    max_probes: int | None = Field(None, ge=0, le=32)
    temperature: float | None = Field(None, ge=0, le=2)
    prices: dict[str, Price] = Field(default_factory=dict)


class ResolvedLLM(BaseModel):
    """Everything the client needs, resolved once per run."""

    model_config = ConfigDict(extra="forbid")

    model: str
    base_url: str | None
    api_key: SecretStr | None = Field(None, exclude=True, repr=False)
    timeout_s: float
    max_retries: int
    backoff_s: float = 1.0
    structured: Literal["auto", "json_schema", "json_object"]
    cache_dir: Path | None
    max_probes: int
    temperature: float
    prices: dict[str, Price] = Field(default_factory=dict)
    config_file: Path | None = None


def default_config_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kreview" / "config.toml"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kreview" / "llm"


def config_file_for(settings: LLMSettings) -> Path | None:
    """The config file this run reads, or None. An explicitly named file must exist."""
    named = settings.config_file or (Path(os.environ["KREVIEW_CONFIG"]) if os.environ.get("KREVIEW_CONFIG") else None)
    if named is not None:
        if not named.is_file():
            raise ConfigError(f"config file {named} does not exist")
        return named
    path = default_config_file()
    return path if path.is_file() else None


def read_file_llm(path: Path | None) -> FileLLM:
    if path is None:
        return FileLLM()
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    table = data.get("llm", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [llm] must be a table")
    try:
        return FileLLM.model_validate(table)
    except ValidationError as exc:
        raise ConfigError(f"{path}: the [llm] table does not validate:\n{exc}") from exc


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None and v != ""), None)


def resolve(settings: LLMSettings) -> ResolvedLLM:
    path = config_file_for(settings)
    f = read_file_llm(path)
    explicit = settings.model_fields_set

    def pick(name: str) -> Any:
        return getattr(settings, name) if name in explicit else _first(getattr(f, name), getattr(settings, name))

    model = _first(settings.model, os.environ.get("KREVIEW_MODEL"), f.model)
    if not model:
        where = f" or [llm] model in {path}" if path else f" or [llm] model in {default_config_file()}"
        raise ConfigError("--llm openai needs a model name: --model, KREVIEW_MODEL" + where)
    base_url = _first(settings.base_url, os.environ.get("OPENAI_BASE_URL"), f.base_url)
    key_from_env = os.environ.get(f.api_key_env) if f.api_key_env else None
    key = _first(os.environ.get("OPENAI_API_KEY"), key_from_env,
                 f.api_key.get_secret_value() if f.api_key else None)
    if key is None and base_url is None:
        raise ConfigError("no API key for the default OpenAI endpoint: set OPENAI_API_KEY (or OPENAI_BASE_URL "
                          "for a local OpenAI-compatible server, which needs no key)")
    cache_on = settings.cache if "cache" in explicit else _first(f.cache, settings.cache)
    cache_dir = (f.cache_dir or default_cache_dir()) if cache_on else None
    return ResolvedLLM(model=model, base_url=base_url, api_key=SecretStr(key) if key else None,
                       timeout_s=pick("timeout_s"), max_retries=pick("max_retries"),
                       backoff_s=_first(f.backoff_s, 1.0), structured=pick("structured"), cache_dir=cache_dir,
                       max_probes=pick("max_probes"), temperature=pick("temperature"), prices=f.prices,
                       config_file=path)
