"""The parsed submission: where its files are, what format and framework it is, what it claims."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.config import Tolerance
from reviewer.core.models import Format, Framework, SubmissionInfo


# folders that are never part of a submission: ingest never reads them, the sandbox never copies them into a
# child (tools/engine/session.py), and kreview's own code digest leaves them out (tools/engine/code_version.py)
SKIPPED_DIRS = frozenset({".git", ".kreview", "__pycache__", ".venv", "node_modules"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ManifestEntry(_Strict):
    file: str
    entry: str | None = None


class ManifestReference(ManifestEntry):
    inputs: str | None = Field(None, description="input generator: 'name' in the reference file, or 'file.py:name'")


class ManifestCase(_Strict):
    params: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = None
    label: str = ""


class Target(_Strict):
    gpu: str | None = None
    arch: list[str] = Field(default_factory=list)


class Claims(_Strict):
    speedup: float | None = Field(None, gt=0)
    time_us: float | None = Field(None, gt=0)
    baseline: Literal["eager", "compile"] = "eager"
    notes: str = ""
    script: str | None = None  # the benchmark script the claim was measured with (read by tools/methodology)


class Port(_Strict):
    """``[port]``: this implementation is a port (a CUDA kernel ported to Triton, a Triton kernel to
    Pallas) and ``original`` is the directory of the implementation it was ported from, relative to
    this one (a sibling: ``"../cuda_original"``). The review then treats the original's behaviour
    as what to preserve (tools/port), float64 judging where both are inexact."""

    original: str
    notes: str = ""


class Manifest(_Strict):
    """``kreview.toml``. Alone it describes a function-style submission; beside a KernelBench or
    GPU MODE directory it only adds facts (target, claims, tolerance, dtype, cases)."""

    name: str | None = None
    format: Format | None = None
    framework: Framework | None = None
    submission: ManifestEntry | None = None
    reference: ManifestReference | None = None
    cases: list[ManifestCase] = Field(default_factory=list)
    dtype: str | None = None
    tolerance: Tolerance = Field(default_factory=Tolerance)
    target: Target = Field(default_factory=Target)
    claims: Claims = Field(default_factory=Claims)
    determinism_required: bool = False
    port: Port | None = None


class NominalCase(_Strict):
    params: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = None
    label: str = ""


class Submission(_Strict):
    root: str
    name: str
    format: Format
    framework: Framework
    frameworks_seen: list[str] = Field(default_factory=list)
    reference_file: str
    submission_file: str
    inputs_file: str | None = None
    entries: dict[str, str] = Field(default_factory=dict)
    nominal_cases: list[NominalCase] = Field(default_factory=list)
    benchmarks: list[NominalCase] = Field(default_factory=list)
    size_constants: dict[str, Any] = Field(default_factory=dict)
    tolerance: Tolerance = Field(default_factory=Tolerance)
    tolerance_source: str = ""
    dtype: str | None = None
    target: Target = Field(default_factory=Target)
    claims: Claims = Field(default_factory=Claims)
    determinism_required: bool = False
    source_files: list[str] = Field(default_factory=list)
    syntax_error: dict[str, Any] | None = None
    manifest_file: str | None = None
    original: Submission | None = None
    """The implementation this one is a port of (kreview.toml ``[port] original``), read as a submission."""

    @property
    def root_path(self) -> Path:
        return Path(self.root)

    @property
    def kernel_files(self) -> list[str]:
        """The submission's own Python files, without its reference, inputs and task files."""
        skip = {self.reference_file, self.inputs_file, "task.py"}
        return [f for f in self.source_files if f.endswith(".py") and f not in skip]

    def path(self, rel: str) -> Path:
        return self.root_path / rel

    def source(self, rel: str | None = None) -> str:
        try:
            return self.path(rel or self.submission_file).read_text(errors="replace")
        except OSError:
            return ""

    def info(self) -> SubmissionInfo:
        return SubmissionInfo(root=self.root, format=self.format, framework=self.framework,
                              reference_file=self.reference_file, submission_file=self.submission_file,
                              name=self.name)
