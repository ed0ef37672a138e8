"""Typed results: what readers (comparison, the workbench's charts, diagnosis) read of ``Evidence.result``.

A tool declares the model its items' ``result`` follows (``Tool.result_model``); readers find items by that
model through the registry (``registry.results``), never by tool name. The models are for reading: they
ignore keys they do not name and every field has a default, so a tool may record more than its model says.
``Evidence.result`` itself stays the mapping the tool recorded, so the JSON contract does not change.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class ResultModel(BaseModel):
    model_config = ConfigDict(extra="ignore")


class FailureDetails(ResultModel):
    """What a failed build, compile or run says (``tool.failure_details``): diagnosis classifies it."""
    error_type: Any = None
    message: Any = None
    error: Any = None
    traceback: Any = None
    stderr_tail: Any = None
    crash: Any = None
    ptxas_error: Any = None


class OutputError(ResultModel):
    path: Any = None
    max_abs_err: float | None = None
    max_ulp: float | None = None


class Comparison(ResultModel):
    outputs: list[OutputError] = Field(default_factory=list)


class BudgetOutput(ResultModel):
    path: Any = None
    sub_max_err: float | None = None
    ref_max_err: float | None = None


class ErrorBudgetRead(ResultModel):
    available: bool = True
    ratio: float | None = None
    outputs: list[BudgetOutput] = Field(default_factory=list)


class JudgedResult(FailureDetails):
    """An item that judged outputs against the reference (correctness, probes, numerics, generality)."""
    comparison: Comparison | None = None
    error_budget: ErrorBudgetRead | None = None
    basis: str | None = None


class Tried(ResultModel):
    config: dict[str, Any] = Field(default_factory=dict)
    verdict: Any = None
    note: Any = None


class SearchRead(ResultModel):
    axis: Any = None
    tried: list[Tried] = Field(default_factory=list)

    @field_validator("tried", mode="before")
    @classmethod
    def _records_only(cls, value: Any) -> Any:
        # a stored run edited by hand or written by another version may hold entries of another shape:
        # the readers show the configurations that are records and skip the rest
        return [t for t in value if isinstance(t, dict)] if isinstance(value, list) else value


class GeneralityResult(JudgedResult):
    search: SearchRead | None = None


class OccupancyRead(ResultModel):
    occupancy: float | None = None
    limiter: Any = None


class ResourcesResult(FailureDetails):
    kernel: Any = None
    arch: str | None = None
    registers: int | None = None
    spill_stores: int | None = None
    spill_loads: int | None = None
    smem_per_block: int | None = None
    threads_per_block: int | None = None
    limits: dict[str, Any] = Field(default_factory=dict)
    occupancy: OccupancyRead | None = None


class DeviceBound(ResultModel):
    floor_us: float | None = None
    cold_floor_us: float | None = None
    roofline_us: float | None = None


class RooflineResult(ResultModel):
    bounds: dict[str, DeviceBound] = Field(default_factory=dict)


class TimingSummary(ResultModel):
    median: float | None = None


class BenchmarkResult(FailureDetails):
    summaries: dict[str, TimingSummary] = Field(default_factory=dict)


class CorrectnessResult(JudgedResult):
    """The check of the outputs on the nominal inputs: what a comparison of implementations quotes."""
