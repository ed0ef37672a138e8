"""Speed of light: the least time a GPU needs for the reference's work, and the roofline time.

Two numbers per device:
- ``floor_s``, a hard lower bound used to call a time impossible. Compute: FLOPs at the device's
  fastest 16-bit tensor-core rate, whatever the reference's dtype (so it holds even for a kernel that
  downcasts fp32 to fp16/bf16). Memory: minimum bytes at HBM bandwidth, applied only when those bytes
  are more than twice the L2 cache (a benchmark that does not flush L2 can legitimately serve a
  smaller working set from cache).
- ``cold_floor_s``, the same bound for a time measured with L2 flushed before every repetition (as
  the benchmark tool does): the reads must come from HBM; writes up to the L2 size may still sit in
  L2 when the kernel ends.
- ``roofline_s``, the attainable time at the reference's own precision with a cold cache:
  max(FLOPs / native peak, bytes / HBM bandwidth). A fair target, not a bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from reviewer.core.models import Evidence
from tools.engine.gpus import GpuSpec, devices, find_device
from tools.engine.harness.case import Case
from tools.engine.tool import Tool, ToolContext

# Rationale: the fastest format a kernel could silently downcast to and still pass fp16-level
# tolerances; fp8 results are too coarse for any tolerance the reviewer uses.
FLOOR_FORMATS = ("fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16")
NATIVE_FORMAT = {"float64": ("fp64_tensor", "fp64"), "float32": ("fp32",), "float16": ("fp16",),
                 "bfloat16": ("bf16",), "float8_e4m3fn": ("fp8",), "float8_e5m2": ("fp8",), "int8": ("int8",)}
# Rationale: without a stated L2 size, only a working set far beyond any current L2 (<= 128 MB) is
# certain to come from HBM.
UNKNOWN_L2_BYTES = 128 * 2**20
L2_FACTOR = 2


class Work(BaseModel):
    """What the reference computes on one case (from tools/engine/counting.py)."""

    model_config = ConfigDict(extra="ignore")

    flops: int
    flops_by_op: dict[str, int] = {}
    read_bytes: int
    write_bytes: int
    input_dtypes: list[str] = []
    output_dtypes: list[str] = []
    counter: str = ""

    @property
    def bytes(self) -> int:
        return self.read_bytes + self.write_bytes

    @property
    def dtype(self) -> str | None:
        floats = [d for d in self.input_dtypes if d.startswith(("float", "bfloat"))]
        return (floats or self.output_dtypes or [None])[0]


class Bound(BaseModel):
    model_config = ConfigDict(extra="forbid")

    device: str
    device_name: str
    floor_s: float
    cold_floor_s: float
    compute_floor_s: float
    memory_floor_s: float
    memory_floor_applies: bool
    memory_note: str
    floor_format: str
    roofline_s: float | None
    native_format: str | None
    arithmetic_intensity: float | None
    bound_by: str
    sources: list[str]

    def describe(self) -> dict[str, Any]:
        return {**self.model_dump(), "floor_us": round(self.floor_s * 1e6, 3),
                "cold_floor_us": round(self.cold_floor_s * 1e6, 3),
                "roofline_us": None if self.roofline_s is None else round(self.roofline_s * 1e6, 3)}


@dataclass(frozen=True)
class RooflineFact:
    """What the roofline tool left for the benchmark: the reference's work on ``case`` and the
    speed-of-light bound per device key."""
    work: Work
    bounds: dict[str, Bound]
    case: Case


def _peak(device: GpuSpec, formats: tuple[str, ...]) -> tuple[float, str] | None:
    best = [(device.peak(f), f) for f in formats if device.peak(f) is not None]
    return max(best) if best else None  # type: ignore[return-value, type-var]


def speed_of_light(work: Work, device: GpuSpec) -> Bound:
    floor_peak = _peak(device, FLOOR_FORMATS)
    assert floor_peak is not None, f"{device.key} has no floating-point peak"
    compute_floor = work.flops / floor_peak[0]
    raw_memory = work.bytes / device.bandwidth
    l2 = device.l2_bytes if device.l2_bytes is not None else UNKNOWN_L2_BYTES
    applies = work.bytes > L2_FACTOR * l2
    if applies:
        note = f"{work.bytes} bytes > {L2_FACTOR} x L2 ({l2} bytes): they must stream from HBM"
    else:
        note = (f"{work.bytes} bytes fit in {L2_FACTOR} x L2 ({l2} bytes"
                f"{', size not published: assumed' if device.l2_bytes is None else ''}); a warm L2 could serve "
                "them, so HBM bandwidth is no hard floor")
    memory_floor = raw_memory if applies else 0.0
    native = None
    roofline = None
    if work.dtype is not None and (fmt := _peak(device, NATIVE_FORMAT.get(work.dtype, ()))) is not None:
        native = fmt[1]
        roofline = max(work.flops / fmt[0], raw_memory)
    elif work.flops == 0:
        roofline = raw_memory
    intensity = work.flops / work.bytes if work.bytes else None
    floor = max(compute_floor, memory_floor)
    unabsorbed_writes = max(0, work.write_bytes - (device.l2_bytes or 0))
    cold_floor = max(compute_floor, (work.read_bytes + unabsorbed_writes) / device.bandwidth)
    if roofline is not None:
        bound_by = "compute" if work.flops and roofline > raw_memory else "memory"
    else:
        bound_by = "compute" if compute_floor >= raw_memory else "memory"
    return Bound(device=device.key, device_name=device.name, floor_s=floor, cold_floor_s=cold_floor,
                 compute_floor_s=compute_floor,
                 memory_floor_s=raw_memory, memory_floor_applies=applies, memory_note=note,
                 floor_format=floor_peak[1], roofline_s=roofline, native_format=native,
                 arithmetic_intensity=intensity, bound_by=bound_by, sources=device.sources)


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1e6:.3g} us" if seconds < 1e-3 else f"{seconds * 1e3:.3g} ms"


def bound_here(roof: RooflineFact, device_name: str) -> Bound:
    """The floor for a time measured on ``device_name``: its own if the table knows it, else the
    smallest floor of the whole table (a faster GPU's floor is still a floor)."""
    dev = find_device(device_name)
    if dev is not None:
        return roof.bounds.get(dev.key) or speed_of_light(roof.work, dev)
    return min((speed_of_light(roof.work, d) for d in devices().values()), key=lambda b: b.cold_floor_s)


def targets_bound(bounds: dict[str, Bound], gpu: str | None) -> Bound | None:
    """The bound of the target GPU ``gpu``, if the table knows it."""
    dev = find_device(gpu)
    return bounds.get(dev.key) if dev is not None else None


def claim_bound(bounds: dict[str, Bound], gpu: str | None) -> Bound:
    """The bound a claim is held to: its GPU's, else the smallest floor of all (never a false alarm)."""
    return targets_bound(bounds, gpu) or min(bounds.values(), key=lambda b: (b.floor_s, b.cold_floor_s))


def check_time(ctx: ToolContext, tool: Tool, *, seconds: float, what: str, bound: Bound, case: Case | None,
               rerun: str, cold_cache: bool = False, extra: dict[str, Any] | None = None) -> Evidence:
    """``what`` ("the claimed time", "the measured median") of ``seconds`` against ``bound``'s floor,
    recorded under ``tool``, the tool that measured or read the time (it declares ``integrity`` and
    ``performance``); ``cold_cache``: the time was measured with L2 flushed before each repetition."""
    floor = bound.cold_floor_s if cold_cache else bound.floor_s
    memory = floor > bound.compute_floor_s
    why = (f"{bound.device}, {'memory' if memory else 'compute'}-bound: {fmt_time(bound.compute_floor_s)} at the "
           f"{bound.floor_format} peak" + (f", {fmt_time(floor)} at HBM bandwidth" if memory else "")
           + ("" if cold_cache or bound.memory_floor_applies else "; the data fit in L2, so only compute bounds it"))
    result = {"seconds": seconds, "floor_s": floor, "cold_cache": cold_cache,
              "ratio_to_floor": seconds / floor if floor else None, "bound": bound.describe(), **(extra or {})}
    inputs = {"case": case.model_dump()} if case is not None else {}
    if floor > 0 and seconds < floor:
        return ctx.add_evidence(tool, criteria=["integrity", "performance"], outcome="fail",
                                defect="impossible_speed",
                                summary=f"{what} {fmt_time(seconds)} is below the speed-of-light floor of "
                                        f"{fmt_time(floor)} ({why}): no kernel can do the reference's work that fast",
                                check="time vs speed-of-light floor", inputs=inputs, result=result,
                                config={"sources": bound.sources}, rerun=rerun)
    # Rationale: a time above the floor proves nothing about integrity (a fake can be slow), so this is
    # a measurement for the reader, never a pass that could settle the criterion on its own.
    return ctx.add_evidence(tool, criteria=["integrity"], outcome="info",
                            summary=f"{what} {fmt_time(seconds)} is at or above the speed-of-light floor of "
                                    f"{fmt_time(floor)} ({why})",
                            check="time vs speed-of-light floor", inputs=inputs, result=result,
                            config={"sources": bound.sources}, rerun=rerun)
