"""Typed configuration of one review run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.sandbox.limits import SandboxLimits


class Tolerance(BaseModel):
    """Overrides of the per-dtype comparison tolerances (``None`` keeps the default)."""

    model_config = ConfigDict(extra="forbid")

    atol: float | None = Field(None, ge=0)
    rtol: float | None = Field(None, ge=0)


class LLMSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    provider: Literal["none", "openai"] = "none"
    model: str | None = None
    base_url: str | None = None
    timeout_s: float = 120.0
    max_retries: int = 2
    cache: bool = True


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
    tolerance: Tolerance = Field(default_factory=Tolerance)
    signoff: bool = True
    disabled_tools: list[str] = Field(default_factory=list)
    only_tools: list[str] | None = None
    llm: LLMSettings = Field(default_factory=LLMSettings)
