"""roofline: the reference's FLOPs and minimum memory traffic, the speed-of-light time per GPU, and
claimed or measured times checked against that floor (a time below it is impossible: the kernel
skipped work, cached results, or the timing was tampered with)."""

from __future__ import annotations

from tools.engine.results import RooflineResult
from tools.engine.tool import Tool, ToolContext, failure_details
from tools.engine.cases import nominal_cases
from tools.engine.harness.case import Case
from tools.engine.gpus import GpuSpec, devices, find_device
from tools.engine.speed_of_light import RooflineFact, Work, check_time, claim_bound, fmt_time, speed_of_light


def _fmt_bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def target_devices(ctx: ToolContext) -> tuple[list[GpuSpec], str]:
    """The GPUs a floor is computed for: the declared target, else the GPU here, else every device
    in the table; and a note saying which rule applied."""
    declared = find_device(ctx.submission.target.gpu)
    if declared is not None:
        return [declared], f"declared target {ctx.submission.target.gpu}"
    here = find_device(ctx.device.name) if ctx.device.has_gpu else None
    if here is not None:
        return [here], f"the GPU here ({ctx.device.name})"
    note = "no target GPU declared; floors for every device in the table"
    if ctx.submission.target.gpu:
        note = f"target {ctx.submission.target.gpu!r} is not in the device table; floors for every device"
    return list(devices().values()), note


class RooflineTool(Tool):
    name = "roofline"
    result_model = RooflineResult
    criteria = ("performance", "integrity")
    after = ("builds",)
    leaves = (RooflineFact,)
    description = "FLOPs and minimum bytes of the reference; speed-of-light floor per GPU; claims below it"

    def run(self, ctx: ToolContext) -> None:
        self.rerun_case(ctx, nominal_cases(ctx, 1, "roofline")[0])

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        rerun = ctx.rerun(self.name, case)
        ref = ctx.session.reference(case)
        if not ref.ok:
            ctx.add_evidence(self, criteria=["performance"], outcome="unverified", defect="reference_failed",
                             summary=f"no roofline: the reference failed on {case.label}: {ref.call.failure_text()[:300]}",
                             reason="reference failed", result=failure_details(ref.call), rerun=rerun)
            return
        call = ctx.session.reference_call("reference_work", ref)
        if not (call.answered and call.ok):
            ctx.add_evidence(self, criteria=["performance"], outcome="unverified", defect="flop_count_failed",
                             summary=f"no roofline: counting the reference's work failed: {call.failure_text()[:300]}",
                             reason="FLOP/byte counting failed", result=failure_details(call), rerun=rerun)
            return
        work = Work.model_validate(call.result)
        targets, note = target_devices(ctx)
        bounds = {d.key: speed_of_light(work, d) for d in targets}
        ctx.facts.put(RooflineFact(work=work, bounds=bounds, case=case))
        ops = ", ".join(f"{k.split('.')[-1]} {v / 1e9:.3g} GFLOP" for k, v in work.flops_by_op.items()) or "none counted"
        shown = sorted(bounds.values(), key=lambda b: b.cold_floor_s)
        floors = "; ".join(
            f"{b.device} {fmt_time(b.cold_floor_s)}" + (f" (roofline at {b.native_format} {fmt_time(b.roofline_s)}, "
                                                         f"{b.bound_by}-bound)" if b.roofline_s is not None else "")
            for b in shown)
        ctx.add_evidence(self, criteria=["performance"], outcome="info",
                         summary=f"reference on {case.label}: {work.flops / 1e9:.4g} GFLOP ({ops}), minimum traffic "
                                 f"{_fmt_bytes(work.bytes)} (read {_fmt_bytes(work.read_bytes)}, write "
                                 f"{_fmt_bytes(work.write_bytes)}); speed-of-light floor with a flushed L2: {floors}",
                         check="torch.utils.flop_counter on the reference; bytes = inputs read once + outputs "
                               "written once; floors from tools/engine/gpus.yaml",
                         inputs={"case": case.model_dump(), "tensors": ref.meta.get("inputs", [])},
                         config={"devices": note, "sources": {b.device: b.sources for b in shown}},
                         result={"work": work.model_dump(), "bounds": {k: b.describe() for k, b in bounds.items()}},
                         rerun=rerun, duration_s=call.duration_s)
        claims = ctx.submission.claims
        if claims.time_us is not None:
            bound = claim_bound(bounds, ctx.submission.target.gpu)
            check_time(ctx, self, seconds=claims.time_us * 1e-6, what="the claimed time", bound=bound, case=case,
                       rerun=rerun, extra={"claim": claims.model_dump()})
