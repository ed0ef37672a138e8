"""pallas_padding: sizes that leave a partial last block, run in both Pallas interpreters.

Pallas never raises for an array dimension that is not a multiple of its block: the partial block
is padded (NaN for floats; INT_MIN under ``interpret=True`` and INT_MAX under the TPU interpreter
for integers) and out-of-range output is dropped. A kernel that reduces over a partial block
without masking it is then wrong only off the nominal shape. This tool reads the blocks of every
``pallas_call`` the nominal run traced, finds the size parameters equal to a blocked dimension, and
reruns with sizes whose last block has an *odd* number of padded elements: an even count of
INT_MIN wraps to 0 in int32 (24 x INT_MIN == 0 mod 2^32) and hides an unmasked integer reduction
under ``interpret=True``. Each size runs under ``interpret=True`` and the TPU interpreter.

A clear error raised by the submission's own code for a size it does not support counts as a valid
rejection (pass); a silent wrong answer fails. Criterion: ``generality``.
"""

from __future__ import annotations

import re
from typing import Any

from tools.engine.backends.base import CheckMode
from tools.engine.backends.pallas import INSTRUMENT
from tools.engine.formats import format_of
from tools.engine.tool import Tool, ToolContext, failure_details
from tools.engine.cases import nominal_cases
from tools.engine.compare import compare_outputs
from tools.engine.facts import PallasCalls
from tools.engine.harness.case import Case
from tools.engine.outcomes import classify_failure, input_elements

# Rationale: two sizes per blocked dimension (1 padded element, and an odd count near half a
# block) and at most four cases keep the probe within seconds under the interpreters.
MAX_CASES = 4
_REJECTIONS = ("ValueError", "TypeError", "AssertionError", "NotImplementedError")


def padded_sizes(value: int, block: int) -> list[tuple[int, int]]:
    """Sizes near ``value`` whose last ``block`` is partial with an odd number of padded elements,
    as (size, padded elements): one padded element, and an odd count near half a block."""
    if block <= 1:
        return []
    top = -(-value // block) * block
    half = block // 2 + 1
    pads = sorted({1, half if half % 2 else half - 1})
    out = []
    for pad in pads:
        size = top - pad
        if size > 0 and size != value and pad < block:
            out.append((size, pad))
    return out


def size_parameters(ctx: ToolContext) -> dict[str, int]:
    """Integer size parameters of the nominal case (KernelBench constants, generator kwargs)."""
    return format_of(ctx.submission).size_parameters(ctx.submission)


def plan_cases(calls: list[dict[str, Any]], params: dict[str, int]) -> list[dict[str, Any]]:
    """(param, size, pad, block, origin) for every blocked dimension a size parameter sets."""
    plans: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    for call in calls:
        for blk in call.get("blocks") or []:
            for b, d in zip(blk.get("block_shape", []), blk.get("array_shape", [])):
                if not isinstance(b, int) or b <= 1 or (b >= d and d % b == 0):
                    continue
                for name, value in sorted(params.items()):
                    if value != d:
                        continue
                    for size, pad in padded_sizes(value, b):
                        if (name, size) in seen:
                            continue
                        seen.add((name, size))
                        plans.append({"param": name, "size": size, "pad": pad, "block": b, "nominal": value,
                                      "kernel": call.get("kernel"), "operand": blk.get("origin")})
    # one padded element for every parameter first, then the odd counts near half a block
    return sorted(plans, key=lambda p: p["pad"] != 1)[:MAX_CASES]


def _own_rejection(call: Any, submission_file: str) -> bool:
    """The submission's own code raised a clear error (its last traceback frame is its own file)."""
    err = call.error or {}
    if err.get("type") not in _REJECTIONS:
        return False
    frames = re.findall(r'File "([^"]+)", line \d+', err.get("traceback") or "")
    return bool(frames) and frames[-1].endswith("/" + submission_file)


class PallasPaddingTool(Tool):
    name = "pallas_padding"
    criteria = ("generality",)
    after = ("builds", "lowering")
    description = "sizes with an odd-sized partial last block, under interpret=True and the TPU interpreter"
    frameworks = ("pallas",)

    def applies(self, ctx: ToolContext) -> str | None:
        if not ctx.setup.can_run:
            return ctx.setup.why_not
        return None

    def run(self, ctx: ToolContext) -> None:
        if ctx.builds_failed():
            return
        from tools.engine.compat import jax_untested

        untested = jax_untested()
        if untested:
            ctx.add_evidence(self, outcome="unverified", defect="jax_untested", reason=untested,
                             summary=f"not checked: {untested}"[:500], check="partial-block padding under the "
                             "TPU interpreter", rerun=ctx.rerun(self.name))
            return
        fact = ctx.facts.get(PallasCalls)
        calls = list(fact.calls) if fact is not None and fact.calls is not None else None
        if calls is None:
            calls = self._trace(ctx)
        plans = plan_cases(calls or [], size_parameters(ctx))
        if not plans:
            blocks = [b.get("block_shape") for c in calls or [] for b in c.get("blocks") or []]
            ctx.add_evidence(self, outcome="info", summary="no size parameter sets a dimension that is split into "
                             f"blocks (blocks seen: {blocks[:6]}); partial blocks not probed",
                             check="plan partial-block sizes", result={"calls": len(calls or [])},
                             rerun=ctx.rerun(self.name))
            return
        seed = ctx.seeds(1, "pallas-padding")[0]
        sub = ctx.submission
        base = ({} if format_of(sub).sizes_in_reference or not sub.nominal_cases
                else dict(sub.nominal_cases[0].params))
        for plan in plans:
            case = Case(id=f"padding-{plan['param']}-{plan['size']}", seed=seed,
                        params={**base, plan["param"]: plan["size"]},
                        dtype=ctx.submission.dtype,
                        label=f"{plan['param']}={plan['size']} (block {plan['block']}: {plan['pad']} padded)")
            self._probe(ctx, case, plan)

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        self._probe(ctx, case, {})

    def _trace(self, ctx: ToolContext) -> list[dict[str, Any]]:
        case = nominal_cases(ctx, 1, "pallas-padding-trace")[0]
        ref = ctx.session.reference(case)
        if not ref.ok:
            return []
        run = ctx.session.run_submission(case, ref, instruments=[INSTRUMENT], keep_inputs_after=False,
                                         options={INSTRUMENT: {"mode": "interpret"}})
        return ((run.meta.get("instruments") or {}).get(INSTRUMENT) or {}).get("calls", []) if run.ok else []

    def _probe(self, ctx: ToolContext, case: Case, plan: dict[str, Any]) -> None:
        ref = ctx.session.reference(case)
        rerun = ctx.rerun(self.name, case)
        if not ref.ok:
            ctx.add_evidence(self, outcome="info", summary=f"{case.label}: the reference does not accept this size "
                             f"({ref.call.failure_text()[:200]}); not probed", check="partial last block",
                             inputs={"case": case.model_dump()}, result=failure_details(ref.call), rerun=rerun)
            return
        seed = ctx.seeds(1, "pallas-padding-grid-order")[0]
        for mode in (CheckMode("interpret", "interpret=True (partial blocks padded with NaN / INT_MIN)"),
                     CheckMode("tpu", f"TPU interpreter (padding NaN / INT_MAX, grid-order seed {seed})",
                               options={"seed": seed})):
            run = ctx.session.run_submission(case, ref, instruments=[INSTRUMENT], keep_inputs_after=False,
                                             options={INSTRUMENT: {"mode": mode.name, "seed": mode.options.get("seed")}})
            inputs = {"case": case.model_dump(), "tensors": ref.meta.get("inputs", []), "plan": plan}
            common = {"check": f"{mode.title} on {case.label}", "inputs": inputs, "rerun": rerun,
                      "config": {**ctx.environment(), "mode": mode.name, **mode.options},
                      "duration_s": run.call.duration_s}
            if not run.ok:
                if _own_rejection(run.call, ctx.submission.submission_file):
                    ctx.add_evidence(self, outcome="pass", summary=f"{case.label}: rejected by the submission's own "
                                     f"check ({run.call.failure_text()[:200]})", result=failure_details(run.call),
                                     **common)
                    continue
                c = classify_failure(run.call, interpreted=ctx.setup.interpreted, input_numel=input_elements(ref.meta),
                                     on_cpu=not ctx.device.has_gpu, stage=f"{case.label} under {mode.name}")
                ctx.add_evidence(self, outcome=c.outcome, defect=c.defect, summary=c.reason,
                                 reason=c.reason if c.outcome == "unverified" else None,
                                 result=failure_details(run.call), **common)
                continue
            atol, rtol = ctx.tolerance()
            cmp = compare_outputs(run.outputs, ref.outputs, atol=atol, rtol=rtol)
            why = ""
            if not cmp.ok and plan:
                why = (f" ({plan['param']}={plan['size']} is not a multiple of block {plan['block']} of "
                       f"{plan['kernel']} {plan['operand']}: the last block holds {plan['pad']} padded element(s) "
                       "per row of blocks; an unmasked reduction or read over them is wrong)")
            ctx.add_evidence(self, outcome="pass" if cmp.ok else "fail", defect=None if cmp.ok else "partial_block",
                             summary=f"{case.label}, {mode.name}: " + (cmp.headline() if cmp.ok else cmp.reason + why),
                             result={"comparison": cmp.model_dump()}, **common)
