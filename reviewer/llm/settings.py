"""Where the model, the endpoint and the key come from.

One model, ``LLMSettings`` (reviewer/core/config.py), holds every LLM setting, and ``load_config`` layers
it like any other setting. Precedence, highest first: the command line (``--llm``, ``--model``) or the
repository file's ``llm`` table, the environment (``KREVIEW_MODEL``, and the openai client's own
``OPENAI_BASE_URL``), the ``[llm]`` table of the user's file, then the defaults. The user's file is
``--user-config``, else ``$KREVIEW_CONFIG``, else ``$XDG_CONFIG_HOME/kreview/config.toml``
(``~/.config/kreview/config.toml``) when it exists.

The API key (``OPENAI_API_KEY``, else the variable ``api_key_env`` names, else the file's ``api_key``) is
resolved here and handed to the client only: it is never part of ``ReviewConfig`` (which is stored in
the run's checkpoint), of the cache key, or of any record.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, ValidationError

from reviewer.core.config import LLMSettings, Price, env_layer, load_config
from reviewer.core.errors import ConfigError

__all__ = ["Price", "ResolvedLLM", "resolve", "user_file", "user_layer"]

NOT_IN_USER_FILE = ("provider", "config_file")
"""``[llm]`` keys the user's file may not set: the provider is chosen per run (``--llm``), and the file's
own path is recorded, not written."""


class ResolvedLLM(LLMSettings):
    """The settings with what only the client needs: a model name for sure, the key, the cache folder
    (None: no cache)."""

    model: str
    api_key: SecretStr | None = Field(None, exclude=True, repr=False)


def default_config_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kreview" / "config.toml"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kreview" / "llm"


def user_file(named: Path | None = None) -> Path | None:
    """The user's file this run reads, or None. An explicitly named file must exist."""
    named = named or (Path(os.environ["KREVIEW_CONFIG"]) if os.environ.get("KREVIEW_CONFIG") else None)
    if named is not None:
        if not Path(named).is_file():
            raise ConfigError(f"config file {named} does not exist")
        return Path(named)
    path = default_config_file()
    return path if path.is_file() else None


def _llm_table(path: Path | None) -> tuple[dict[str, Any], str | None]:
    """The ``[llm]`` table of the user's file, validated, without the key; and the key."""
    if path is None:
        return {}, None
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    table = data.get("llm", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [llm] must be a table")
    table = dict(table)
    key = table.pop("api_key", None)
    refused = [k for k in NOT_IN_USER_FILE if k in table]
    if refused or (key is not None and not isinstance(key, str)):
        raise ConfigError(f"{path}: [llm] may not set {', '.join(refused) or 'a non-string api_key'}")
    try:
        LLMSettings.model_validate(table)
    except ValidationError as exc:
        raise ConfigError(f"{path}: the [llm] table does not validate:\n{exc}") from exc
    return table, key


def user_layer(named: Path | None = None) -> dict[str, Any]:
    """The user's file as a layer of ``load_config`` (its ``[llm]`` table, without the key)."""
    path = user_file(named)
    table, _ = _llm_table(path)
    return {"llm": table | {"config_file": path}} if path else {}


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None and v != ""), None)


def resolve(settings: LLMSettings) -> ResolvedLLM:
    """Everything the client needs. ``settings`` ranks over the environment and the user's file (layering
    again what ``load_config`` already layered changes nothing, so settings built by hand get them too)."""
    path = user_file(settings.config_file)
    table, file_key = _llm_table(path)
    layered = load_config(cli={"llm": settings.model_dump(exclude_unset=True)}, env=env_layer(),
                          user={"llm": table | {"config_file": path}}).llm
    if not layered.model:
        where = path or default_config_file()
        raise ConfigError(f"--llm openai needs a model name: --model, KREVIEW_MODEL or [llm] model in {where}")
    key_from_env = os.environ.get(layered.api_key_env) if layered.api_key_env else None
    key = _first(os.environ.get("OPENAI_API_KEY"), key_from_env, file_key)
    if key is None and layered.base_url is None:
        raise ConfigError("no API key for the default OpenAI endpoint: set OPENAI_API_KEY (or OPENAI_BASE_URL "
                          "for a local OpenAI-compatible server, which needs no key)")
    cache_dir = (layered.cache_dir or default_cache_dir()) if layered.cache else None
    return ResolvedLLM(**(layered.model_dump() | {"cache_dir": cache_dir}), api_key=SecretStr(key) if key else None)
