"""What the model must answer, per role, as pydantic models (their JSON schema goes into the request
and the prompt). These are the model's words only: nothing here is evidence or a verdict until the
tools run it (probes) or the grounding check accepts it (spans, claims)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Category = Literal["memory_access", "bank_conflicts", "launch_configuration", "synchronisation",
                   "register_pressure", "unsupported_assumption", "fusion_semantics"]
CATEGORY_HELP = {
    "memory_access": "uncoalesced or strided global loads/stores, missing masks, out-of-bounds indexing",
    "bank_conflicts": "shared-memory access patterns that serialise on banks",
    "launch_configuration": "grid/block sizes, tails not covered, num_warps/num_stages choices",
    "synchronisation": "missing or misplaced barriers, races between programs, atomics",
    "register_pressure": "tiles or unrolling that spill registers or cut occupancy",
    "unsupported_assumption": "shapes, strides, contiguity, dtype or value ranges the code silently assumes",
    "fusion_semantics": "a fused computation that differs from the unfused reference (order, precision, epilogue)",
}


class _Out(BaseModel):
    # Rationale: small models add commentary fields; ignoring them costs nothing, rejecting them a retry.
    # The top-level list of each answer is required, so an answer meant for another role never passes.
    model_config = ConfigDict(extra="ignore")


class SpanOut(_Out):
    file: str = Field(description="file name relative to the submission directory, as shown in the listing")
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    quote: str = Field(min_length=1, description="the exact text of those lines (or a part of it), copied")


class FindingOut(_Out):
    category: Category
    severity: Literal["info", "warning"] = "warning"
    message: str = Field(min_length=1, max_length=1000)
    span: SpanOut


class StaticReviewOut(_Out):
    findings: list[FindingOut] = Field(max_length=30)


class TransformOut(_Out):
    kind: str
    args: dict[str, int | float | list[int]] = Field(default_factory=dict)


class ProbeOut(_Out):
    assumption: str = Field(min_length=1, max_length=600, description="the assumption this input would break")
    params: dict[str, int | float | bool] = Field(default_factory=dict)
    dtype: str | None = None
    transforms: list[TransformOut] = Field(default_factory=list, max_length=4)
    finding: str | None = Field(None, description="id of the finding this probe tests, if any (e.g. L2)")
    span: SpanOut | None = None


class PlannerOut(_Out):
    probes: list[ProbeOut] = Field(max_length=32)


class ClaimOut(_Out):
    text: str = Field(min_length=1, max_length=1000)
    evidence: list[str] = Field(default_factory=list)
    spans: list[SpanOut] = Field(default_factory=list)


class SectionOut(_Out):
    criterion: str
    claims: list[ClaimOut] = Field(default_factory=list)


class HumanFlagOut(_Out):
    reason: str = Field(min_length=1, max_length=600)
    evidence: list[str] = Field(default_factory=list)
    spans: list[SpanOut] = Field(default_factory=list)


class DraftOut(_Out):
    headline: list[ClaimOut] = Field(default_factory=list, max_length=8)
    sections: list[SectionOut]
    needs_human: list[HumanFlagOut] = Field(default_factory=list, max_length=5)


class LineEditOut(_Out):
    start_line: int = Field(ge=1, description="first line replaced (1-based, as numbered in the listing)")
    end_line: int = Field(ge=1, description="last line replaced, inclusive")
    replacement: str = Field(max_length=4000, description="the new text of those lines, without line numbers; "
                             "empty deletes them")
    why: str = Field(default="", max_length=600)


class FixerOut(_Out):
    edits: list[LineEditOut] = Field(max_length=8, description="replacements in the submission file, none "
                                     "overlapping; an empty list: no patch proposed")
    summary: str = Field(default="", max_length=600, description="what the patch changes, in one sentence")
