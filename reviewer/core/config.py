"""Typed configuration of one review run, and the one loader that builds it.

Every command builds its ``ReviewConfig`` with ``load_config``, from layers of plain values, highest
first: the command line, the repository's file (``[tool.kreview]`` / ``.kreview.toml``, read by
reviewer/pr/repoconfig.py), the environment (``env_layer``: ``KREVIEW_MODEL``, ``OPENAI_BASE_URL``),
the user's file (``~/.config/kreview/config.toml``, its ``[llm]`` table, read by
reviewer/llm/settings.py ``user_layer``), then the defaults here. A setting has one name everywhere a
user writes it: the command line's (``--skip`` is ``skip``, ``--seeds`` is ``seeds``, ``--timeout`` is
``timeout``, ``--target`` is ``target``). Most are ``ReviewConfig`` fields of the same name; the few that
the model keeps in a table are mapped once, in ``OPTION_PATHS`` (``timeout`` is stored as
``limits.call_timeout_s``). Defaults and bounds live here only: the command line's options default to
None (unset). Tools see only ``ToolOptions``, the part of the configuration they read.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from reviewer.core.limits import SandboxLimits
from reviewer.core.models import Format

DEVICE_PATTERN = r"^(auto|cpu|cuda(:[0-9]+)?)$"
DeviceChoice = Annotated[str, StringConstraints(pattern=DEVICE_PATTERN)]
"""Where kernels run (``--device``): ``auto`` (the first CUDA device when there is one), ``cpu``,
``cuda`` or ``cuda:N`` (that GPU only: the sandbox children see it and no other)."""
Provider = Literal["none", "openai"]
"""The drafter's model provider (``--llm``, ``llm.provider``)."""
Structured = Literal["auto", "json_schema", "json_object"]

OPTION_PATHS: dict[str, tuple[str, ...]] = {
    "timeout": ("limits", "call_timeout_s"),
    "memory_mb": ("limits", "memory_mb"),
    "target": ("target_gpu",),
    "atol": ("tolerance", "atol"),
    "rtol": ("tolerance", "rtol"),
}
"""Settings whose name (the command line's, which a file uses too) differs from where ``ReviewConfig``
keeps them: ``load_config`` moves each layer's ``timeout`` to ``limits.call_timeout_s``, and so on."""

RENAMED = {"disabled_tools": "skip", "only_tools": "only", "correctness_seeds": "seeds"}
"""Old names of settings (configurations stored by earlier versions, e.g. in a run's checkpoint) and
the one name each has now."""


def renamed(data: Any, renames: Mapping[str, str], where: str) -> Any:
    """``data`` with old keys moved to their new names, with a deprecation warning for each (a key given
    under both names keeps the new one)."""
    if not isinstance(data, dict) or not any(k in data for k in renames):
        return data
    out = dict(data)
    for old, new in renames.items():
        if old in out:
            value = out.pop(old)
            warnings.warn(f"{where}: {old!r} is deprecated, use {new!r}", DeprecationWarning, stacklevel=4)
            out.setdefault(new, value)
    return out


class Tolerance(BaseModel):
    """Overrides of the per-dtype comparison tolerances (``None`` keeps the default)."""

    model_config = ConfigDict(extra="forbid")

    atol: float | None = Field(None, ge=0)
    rtol: float | None = Field(None, ge=0)


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


class LLMSettings(BaseModel):
    """The model the run asks, one model for every layer: the ``[llm]`` table of the user's file, the
    environment, the repository file's ``llm`` and ``--llm``/``--model`` all set these fields through
    ``load_config``. Secrets never live here: the key is read only when the client is built
    (reviewer/llm/settings.py), since this configuration is stored in the run's checkpoint."""

    model_config = ConfigDict(extra="forbid")

    provider: Provider = "none"
    model: str | None = None
    base_url: str | None = None
    timeout_s: float = Field(120.0, gt=0)
    max_retries: int = Field(2, ge=0, le=10)
    backoff_s: float = Field(1.0, ge=0)
    cache: bool = True
    cache_dir: Path | None = None
    """Where answers are cached (default ``$XDG_CACHE_HOME/kreview/llm``)."""
    api_key_env: str | None = None
    """Name of an environment variable holding the key (keeps the key itself out of the file)."""
    config_file: Path | None = None
    """The user's file this configuration read (``--user-config``), recorded for messages."""
    structured: Structured = "auto"
    max_probes: int = Field(6, ge=0, le=32)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    prices: dict[str, Price] = Field(default_factory=dict)


def default_runs_dir() -> Path:
    return Path(os.environ.get("KREVIEW_RUNS_DIR", ".kreview/runs"))


class RunSettings(BaseModel):
    """The settings a run's tools read, declared once: ``ToolOptions`` is exactly these (frozen), and
    ``ReviewConfig`` holds them beside the settings only the reviewer reads."""

    model_config = ConfigDict(extra="forbid")

    seeds: int = Field(3, ge=1, le=50)
    """Seeds of the nominal correctness check (``--seeds``)."""
    budget: float = Field(1.0, gt=0, le=100)
    """How much work the off-nominal probes (generality, numerics) may plan, as a multiple of the
    default: counted in interpreter work units (tools/engine/work_units.py), never in seconds, so the same seed
    gives the same checks on a slow and a fast machine."""
    target_gpu: str | None = None
    """The GPU the review targets (``--target``), over the submission's own ``[target] gpu``: the
    virtual device answers as it (tools/engine/harness/virtual_gpu.py), and roofline/benchmark use it."""
    tolerance: Tolerance = Field(default_factory=Tolerance)
    device: DeviceChoice = "auto"
    limits: SandboxLimits = Field(default_factory=SandboxLimits)


class ToolOptions(RunSettings):
    """What tools read of the run's configuration (``ToolContext.options``), and nothing else."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ReviewConfig(RunSettings):
    model_config = ConfigDict(extra="forbid")

    runs_dir: Path = Field(default_factory=default_runs_dir)
    seed: int | None = None
    format_hint: Format | None = None
    rubric: Path | None = None
    signoff: bool = True
    skip: list[str] = Field(default_factory=list)
    """Tools not to run (``--skip``)."""
    only: list[str] | None = None
    """Run only these tools (``--only``); None: every tool."""
    llm: LLMSettings = Field(default_factory=LLMSettings)

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        return renamed(data, RENAMED, "review configuration")

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> ReviewConfig:
        """pydantic's copy, except that ``update`` may not name a setting that does not exist (pydantic
        would set it unchecked and the run would silently ignore it); old names are renamed."""
        if update:
            update = renamed(dict(update), RENAMED, "ReviewConfig.model_copy")
            unknown = sorted(set(update) - set(type(self).model_fields))
            if unknown:
                raise TypeError(f"ReviewConfig has no setting {', '.join(map(repr, unknown))}")
        return super().model_copy(update=update, deep=deep)

    def tool_options(self) -> ToolOptions:
        """The settings tools read: every ``ToolOptions`` field, taken from this configuration."""
        return ToolOptions(**{name: getattr(self, name) for name in RunSettings.model_fields})


def merge_layers(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """The layers merged, later ones over earlier ones; tables merge key by key, and ``None`` (a setting
    a layer leaves unset) never covers a lower layer's value."""
    out: dict[str, Any] = {}
    for layer in layers:
        for key, value in (layer or {}).items():
            if value is None:
                continue
            if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
                out[key] = merge_layers(out[key], value)
            elif isinstance(value, Mapping):
                out[key] = merge_layers(value)
            else:
                out[key] = value
    return out


def option_layer(layer: Mapping[str, Any] | None) -> dict[str, Any]:
    """A layer written with the command line's names, in ``ReviewConfig``'s shape (``OPTION_PATHS``)."""
    plain: dict[str, Any] = {}
    moved: dict[str, Any] = {}
    for key, value in (layer or {}).items():
        path = OPTION_PATHS.get(key)
        if path is None:
            plain[key] = value
            continue
        table = moved
        for part in path[:-1]:
            table = table.setdefault(part, {})
        table[path[-1]] = value
    return merge_layers(plain, moved)


def env_layer(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What the environment sets: the model (``KREVIEW_MODEL``) and the endpoint (``OPENAI_BASE_URL``,
    the openai client's own variable). It ranks over the user's file and under the command line."""
    env = os.environ if environ is None else environ
    return {"llm": {"model": env.get("KREVIEW_MODEL") or None, "base_url": env.get("OPENAI_BASE_URL") or None}}


def load_config(*, cli: Mapping[str, Any] | None = None, repo: Mapping[str, Any] | None = None,
                env: Mapping[str, Any] | None = None, user: Mapping[str, Any] | None = None) -> ReviewConfig:
    """The run's configuration: the command line over the repository's file over the environment over
    the user's file over the defaults. Each layer holds ``ReviewConfig`` keys or the command line's names
    (``OPTION_PATHS``), tables as dicts; ``None`` means unset. Raises pydantic's ``ValidationError`` for a
    value out of range or a setting that does not exist."""
    return ReviewConfig.model_validate(merge_layers(*(option_layer(x) for x in (user, env, repo, cli))))
