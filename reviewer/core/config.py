"""Typed configuration of one review run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.limits import SandboxLimits


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


class ReviewConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    runs_dir: Path = Field(default_factory=default_runs_dir)
    seed: int | None = None
    device: Literal["auto", "cpu", "cuda"] = "auto"
    format_hint: Literal["kernelbench", "gpumode", "manifest"] | None = None
    rubric: Path | None = None
    limits: SandboxLimits = Field(default_factory=SandboxLimits)
    correctness_seeds: int = Field(3, ge=1, le=50)
    budget: float = Field(1.0, gt=0, le=100)
    """How much work the off-nominal probes (generality, numerics) may plan, as a multiple of the
    default: counted in interpreter work units (tools/engine/plan.py), never in seconds, so the same seed
    gives the same checks on a slow and a fast machine."""
    target_gpu: str | None = None
    """The GPU the review targets (``--target``), over the submission's own ``[target] gpu``: the
    virtual device answers as it (tools/engine/harness/virtual_gpu.py), and roofline/benchmark use it."""
    tolerance: Tolerance = Field(default_factory=Tolerance)
    signoff: bool = True
    disabled_tools: list[str] = Field(default_factory=list)
    only_tools: list[str] | None = None
    llm: LLMSettings = Field(default_factory=LLMSettings)
