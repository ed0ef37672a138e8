"""Running one case under the sanitizer and sorting what came back into a typed result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from tools.engine.harness.case import Case
from tools.engine.outcomes import input_elements
from tools.engine.sandbox import CallResult
from tools.engine.session import SandboxSession

INSTRUMENTS = ["triton_sanitizer", "triton_launches"]

Status = Literal["checked", "reference_failed", "call_failed", "incompatible"]


@dataclass
class CaseRun:
    case: Case
    nominal: bool
    status: Status
    numel: int = 0
    inputs: list[dict[str, Any]] = field(default_factory=list)
    call: CallResult | None = None
    sanitizer: dict[str, Any] | None = None
    launches: dict[str, Any] | None = None
    outputs: Any = None
    """the interpreted call's outputs (kept only when asked: a GPU review compares them)"""
    expected: Any = None

    @property
    def violations(self) -> list[dict[str, Any]]:
        return list((self.sanitizer or {}).get("violations") or [])

    def block_constexprs(self, kernel: str | None) -> dict[str, int]:
        """Integer constexprs of ``kernel``'s launches (BLOCK sizes and the like), as launched."""
        out: dict[str, int] = {}
        for launch in (self.launches or {}).get("launches", []):
            if launch.get("kernel") == kernel:
                out.update({k: v for k, v in (launch.get("constexprs") or {}).items()
                            if isinstance(v, int) and not isinstance(v, bool)})
        return out


def run_case(session: SandboxSession, case: Case, *, nominal: bool, keep_outputs: bool = False) -> CaseRun:
    ref = session.reference(case)
    if not ref.ok:
        return CaseRun(case=case, nominal=nominal, status="reference_failed", call=ref.call)
    run = session.run_submission(case, ref, instruments=INSTRUMENTS, keep_inputs_after=False)
    result = CaseRun(case=case, nominal=nominal, status="checked", numel=input_elements(ref.meta),
                     inputs=ref.meta.get("inputs", []), call=run.call)
    if run.ok:
        observed = (run.meta or {}).get("instruments") or {}
        if keep_outputs:
            result.outputs, result.expected = run.outputs, ref.outputs
    else:
        result.status = "call_failed"
        observed = (run.call.error or {}).get("instruments") or {}
        if (run.call.error or {}).get("type") == "SanitizerIncompatible":
            result.status = "incompatible"
    result.sanitizer = observed.get("triton_sanitizer")
    result.launches = observed.get("triton_launches")
    return result
