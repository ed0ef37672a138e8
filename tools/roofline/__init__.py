"""roofline: the reference's FLOPs and minimum memory traffic, the speed-of-light time per GPU, and
claimed or measured times checked against that floor (a time below it is impossible: the kernel
skipped work, cached results, or the timing was tampered with)."""

from __future__ import annotations

from typing import Any

from reviewer.models import Evidence
from tools.base import Tool, ToolContext, failure_details
from tools.cases import nominal_cases
from tools.harness.case import Case
from tools.roofline.devices import Device, devices, find_device
from tools.roofline.floor import Bound, Work, speed_of_light


def _fmt_time(seconds: float) -> str:
    return f"{seconds * 1e6:.3g} us" if seconds < 1e-3 else f"{seconds * 1e3:.3g} ms"


def _fmt_bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def target_devices(ctx: ToolContext) -> tuple[list[Device], str]:
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


def bound_here(roof: dict[str, Any], device_name: str) -> Bound:
    """The floor for a time measured on ``device_name``: its own if the table knows it, else the
    smallest floor of the whole table (a faster GPU's floor is still a floor)."""
    dev = find_device(device_name)
    if dev is not None:
        return roof["bounds"].get(dev.key) or speed_of_light(roof["work"], dev)
    return min((speed_of_light(roof["work"], d) for d in devices().values()), key=lambda b: b.cold_floor_s)


def claim_bound(bounds: dict[str, Bound], gpu: str | None) -> Bound:
    """The bound a claim is held to: its GPU's, else the smallest floor of all (never a false alarm)."""
    dev = find_device(gpu)
    if dev is not None and dev.key in bounds:
        return bounds[dev.key]
    return min(bounds.values(), key=lambda b: (b.floor_s, b.cold_floor_s))


def check_time(ctx: ToolContext, *, seconds: float, what: str, bound: Bound, case: Case | None,
               rerun: str, cold_cache: bool = False, extra: dict[str, Any] | None = None) -> Evidence:
    """``what`` ("the claimed time", "the measured median") of ``seconds`` against ``bound``'s floor;
    ``cold_cache``: the time was measured with L2 flushed before each repetition."""
    floor = bound.cold_floor_s if cold_cache else bound.floor_s
    memory = floor > bound.compute_floor_s
    why = (f"{bound.device}, {'memory' if memory else 'compute'}-bound: {_fmt_time(bound.compute_floor_s)} at the "
           f"{bound.floor_format} peak" + (f", {_fmt_time(floor)} at HBM bandwidth" if memory else "")
           + ("" if cold_cache or bound.memory_floor_applies else "; the data fit in L2, so only compute bounds it"))
    result = {"seconds": seconds, "floor_s": floor, "cold_cache": cold_cache,
              "ratio_to_floor": seconds / floor if floor else None, "bound": bound.describe(), **(extra or {})}
    inputs = {"case": case.model_dump()} if case is not None else {}
    if floor > 0 and seconds < floor:
        return ctx.add_evidence("roofline", criteria=["integrity", "performance"], outcome="fail",
                                defect="impossible_speed",
                                summary=f"{what} {_fmt_time(seconds)} is below the speed-of-light floor of "
                                        f"{_fmt_time(floor)} ({why}): no kernel can do the reference's work that fast",
                                check="time vs speed-of-light floor", inputs=inputs, result=result,
                                config={"sources": bound.sources}, rerun=rerun)
    # Rationale: a time above the floor proves nothing about integrity (a fake can be slow), so this is
    # a measurement for the reader, never a pass that could settle the criterion on its own.
    return ctx.add_evidence("roofline", criteria=["integrity"], outcome="info",
                            summary=f"{what} {_fmt_time(seconds)} is at or above the speed-of-light floor of "
                                    f"{_fmt_time(floor)} ({why})",
                            check="time vs speed-of-light floor", inputs=inputs, result=result,
                            config={"sources": bound.sources}, rerun=rerun)


class RooflineTool(Tool):
    name = "roofline"
    criteria = ("performance", "integrity")
    after = ("builds",)
    description = "FLOPs and minimum bytes of the reference; speed-of-light floor per GPU; claims below it"

    def run(self, ctx: ToolContext) -> None:
        self.probe(ctx, nominal_cases(ctx, 1, "roofline")[0])

    def probe(self, ctx: ToolContext, case: Case) -> None:
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
        ctx.shared["roofline"] = {"work": work, "bounds": bounds, "case": case}
        ops = ", ".join(f"{k.split('.')[-1]} {v / 1e9:.3g} GFLOP" for k, v in work.flops_by_op.items()) or "none counted"
        shown = sorted(bounds.values(), key=lambda b: b.cold_floor_s)
        floors = "; ".join(
            f"{b.device} {_fmt_time(b.cold_floor_s)}" + (f" (roofline at {b.native_format} {_fmt_time(b.roofline_s)}, "
                                                         f"{b.bound_by}-bound)" if b.roofline_s is not None else "")
            for b in shown)
        ctx.add_evidence(self, criteria=["performance"], outcome="info",
                         summary=f"reference on {case.label}: {work.flops / 1e9:.4g} GFLOP ({ops}), minimum traffic "
                                 f"{_fmt_bytes(work.bytes)} (read {_fmt_bytes(work.read_bytes)}, write "
                                 f"{_fmt_bytes(work.write_bytes)}); speed-of-light floor with a flushed L2: {floors}",
                         check="torch.utils.flop_counter on the reference; bytes = inputs read once + outputs "
                               "written once; floors from tools/roofline/devices.yaml",
                         inputs={"case": case.model_dump(), "tensors": ref.meta.get("inputs", [])},
                         config={"devices": note, "sources": {b.device: b.sources for b in shown}},
                         result={"work": work.model_dump(), "bounds": {k: b.describe() for k, b in bounds.items()}},
                         rerun=rerun, duration_s=call.duration_s)
        claims = ctx.submission.claims
        if claims.time_us is not None:
            bound = claim_bound(bounds, ctx.submission.target.gpu)
            check_time(ctx, seconds=claims.time_us * 1e-6, what="the claimed time", bound=bound, case=case,
                       rerun=rerun, extra={"claim": claims.model_dump()})
