"""Typed configuration of one review run, and the one loader that builds it.

Every command builds its ``ReviewConfig`` with ``load_config``, from layers of plain values, highest
first: the command line, the repository's file (``[tool.kreview]`` / ``.kreview.toml``, read by
reviewer/pr/repoconfig.py), the user's file (``~/.config/kreview/config.toml``: its ``[llm]`` table,
read by reviewer/llm/settings.py when the drafter is built, as the lowest layer under the CLI and the
environment), then the defaults here. A setting has one name everywhere: the command line's
(``--skip`` is ``skip``, ``--only`` is ``only``, ``--seeds`` is ``seeds``). Tools see only
``ToolOptions``, the part of the configuration they read.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from reviewer.core.limits import SandboxLimits
from reviewer.core.models import Format

FORMATS: tuple[str, ...] = get_args(Format)
"""The submission formats (``--format-hint``), listed once: ``Format`` in reviewer/core/models.py."""

DeviceChoice = Literal["auto", "cpu", "cuda"]

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


class LLMSettings(BaseModel):
    """What the run asks of the model. Fields left unset here fall back to the environment and then
    to the ``[llm]`` table of the config file (reviewer/llm/settings.py); secrets never live here."""

    model_config = ConfigDict(extra="forbid")

    provider: Literal["none", "openai"] = "none"
    model: str | None = None
    base_url: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 2
    cache: bool = True
    config_file: Path | None = None
    structured: Literal["auto", "json_schema", "json_object"] = "auto"
    max_probes: int = Field(6, ge=0, le=32)
    temperature: float = Field(0.0, ge=0.0, le=2.0)


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


def load_config(*, cli: Mapping[str, Any] | None = None, repo: Mapping[str, Any] | None = None,
                user: Mapping[str, Any] | None = None) -> ReviewConfig:
    """The run's configuration: the command line over the repository's file over the user's file over
    the defaults. Each layer holds ``ReviewConfig`` keys (tables as dicts); ``None`` means unset.
    Raises pydantic's ``ValidationError`` for a value out of range."""
    return ReviewConfig.model_validate(merge_layers(user, repo, cli))
