"""Pallas (JAX): run in the interpreters on CPU, check under the TPU interpreter, lower without a device.

Run: every ``pallas_call`` is forced into ``interpret=True`` by the child prelude
``tools.engine.harness.pallas_shim`` (a CPU cannot run it otherwise), unless jaxlib can run it here.
Check modes: ``interpret`` (what the plain run does, reported beside the others) and the TPU
interpreter under several grid-order seeds: it detects DMA and cross-core write races, raises on
out-of-bounds reads that ``interpret=True`` clamps, fills uninitialised memory with NaN and runs
``parallel`` grid dimensions on 2 simulated cores in a shuffled order, which exposes wrong
``dimension_semantics``. Lower: ``jax.export`` for ``tpu`` (Mosaic), ``cuda`` through Triton and
Mosaic GPU, in the sandbox child (it imports the submission), the IR kept as artifacts.
"""

from __future__ import annotations

import importlib.util
import re
from typing import TYPE_CHECKING, Any

from tools.engine.facts import PallasCalls
from tools.engine.backends.base import (
    Backend,
    CheckMode,
    Defect,
    Lowered,
    ModeRun,
    StaticFinding,
)
from tools.engine.runsetup import DeviceInfo, RunSetup

if TYPE_CHECKING:
    from reviewer.core.submission import Submission
    from tools.engine.tool import ToolContext
    from tools.engine.harness.case import Case
    from tools.engine.session import ReferenceRun

SHIM = "tools.engine.harness.pallas_shim"
CUDA_SHIM = "tools.engine.harness.cuda_shim"
INSTRUMENT = "pallas"
LOWER_TARGETS = ("tpu", "triton", "mosaic_gpu")
TARGET_TITLES = {"tpu": "TPU (Mosaic)", "triton": "CUDA through Triton", "mosaic_gpu": "CUDA through Mosaic GPU"}
# Rationale: three shuffled grid orders catch an order-dependent reduction with high probability
# (each shuffle breaks a k-axis accumulation unless it leaves step 0 first) at ~5 ms per grid point.
GRID_ORDER_SEEDS = 3

# Rationale: these are the messages of Pallas's own lowering rules (jax 0.10.2); a match names the
# rule a kernel broke, so the finding says which hardware constraint it is.
_RULES = (
    ("tpu_block_tiling", re.compile(r"divisible by 8 and 128")),
    ("triton_power_of_two", re.compile(r"size is a power of 2")),
    ("unimplemented_primitive", re.compile(r"Unimplemented primitive")),
)
# Rationale: the target cannot express this kind of kernel at all (TPU compiler params on a GPU,
# no lowering registered): not the kernel's fault, so never a build failure.
_UNSUPPORTED = re.compile(r"cannot be used for \w+ lowering|Cannot lower pallas_call on platform|"
                          r"not supported on|Only interpret mode is supported")
# this jaxlib cannot lower for that platform at all (a CPU-only jaxlib of some JAX versions): the
# reviewer's install, not the kernel
_JAXLIB_CANNOT = re.compile(r"To use Pallas on (?:GPU|TPU), install jaxlib")
_OOB = re.compile(r"Out-of-bounds (?:read|write)[^\n]*")
_GPU_STYLE = re.compile(r"pallas\s+import\s+(?:triton|mosaic_gpu)|pallas\.(?:triton|mosaic_gpu)|"
                        r"\b(?:pltriton|plgpu)\.")
_TPU_TARGET = re.compile(r"\btpu\b|\bv[4-7][a-z]*\b|trillium", re.IGNORECASE)
_GPU_TARGET = re.compile(r"\bsm_?\d+|\b[ahlb]\d{2,3}\b|cuda|nvidia|\bgpu\b", re.IGNORECASE)


def _jax_gpu_plugin() -> bool:
    return any(importlib.util.find_spec(m) is not None
               for m in ("jax_cuda12_plugin", "jax_cuda13_plugin", "jax_plugins.xla_cuda12"))


def intended_targets(family: str | None, submission: Submission, source: str) -> set[str]:
    """The targets a kernel is written for: its compiler params, else the manifest's target, else
    its imports; a kernel with no hint is meant to lower for TPU or for Triton."""
    if family in LOWER_TARGETS:
        return {family}
    declared = " ".join([submission.target.gpu or "", *submission.target.arch])
    if _TPU_TARGET.search(declared):
        return {"tpu"}
    if _GPU_TARGET.search(declared):
        return {"triton"}
    if re.search(r"pallas\.mosaic_gpu|\bplgpu\.", source):
        return {"mosaic_gpu"}
    if _GPU_STYLE.search(source):
        return {"triton"}
    if re.search(r"pallas\s+import\s+tpu|pallas\.tpu|\bpltpu\.", source):
        return {"tpu"}
    return {"tpu", "triton"}


def classify_lowering(entry: dict[str, Any], intended: bool) -> tuple[str, str | None]:
    """(status, rule) of one lowering attempt recorded by the ``pallas`` instrument."""
    if entry.get("status") == "ok":
        return "ok", None
    if entry.get("status") == "unavailable":  # the reviewer could not attempt it (tools/engine/harness/instruments/pallas.py)
        return "unavailable", None
    message = entry.get("message", "")
    if _JAXLIB_CANNOT.search(message):
        return "unavailable", None
    if _UNSUPPORTED.search(message):
        return "unsupported", None
    rule = next((name for name, rx in _RULES if rx.search(message)), "lowering_error")
    if rule == "unimplemented_primitive" and not intended:
        return "unsupported", rule
    return "rejected", rule


class PallasBackend(Backend):
    name = "pallas"
    markers = (r"pallas_call", r"jax\.experimental\s+import\s+pallas", r"jax\.experimental\.pallas")
    priority = 20
    supports_static_compile = True
    supports_sanitizer = True
    jax_traced = True

    def device_for(self, submission: Submission, device: DeviceInfo) -> DeviceInfo:
        """A kernel written for TPU only (TPU compiler params, ``pltpu``, a TPU target) is not compiled
        for the machine's GPU, whose lowering would reject TPU parameters: it runs in the
        interpreters, as on a machine without a GPU."""
        if not device.has_gpu:
            return device
        if intended_targets(None, submission, submission.source()) == {"tpu"}:
            return DeviceInfo(kind="cpu", name=f"cpu (a TPU kernel: not compiled for the {device.name})")
        return device

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        from tools.engine.compat import jax_missing

        missing = jax_missing()
        if missing:  # an install without the [pallas] extra: nothing of the kernel can run here
            return RunSetup(can_run=False, why_not=missing)
        if device.has_gpu and _jax_gpu_plugin():
            return RunSetup(can_run=True, preludes=(SHIM,), env=(("KREVIEW_PALLAS_MODE", "native"),),
                            note="Pallas compiled for the GPU by jaxlib's CUDA plugin")
        return RunSetup(can_run=True, env=(("JAX_PLATFORMS", "cpu"), ("KREVIEW_PALLAS_MODE", "interpret")),
                        preludes=(CUDA_SHIM, SHIM), interpreted=True,
                        note="Pallas interpret=True on CPU (every pallas_call forced into the interpreter); "
                             "device='cuda' requests mapped to CPU")

    # -- dynamic checks ----------------------------------------------------------------------
    def check_modes(self, ctx: ToolContext) -> list[CheckMode]:
        from tools.engine.compat import jax_untested

        untested = jax_untested()  # the TPU interpreter checks hook JAX internals of the tested versions
        modes = [CheckMode("interpret", "interpret=True (in-order grid, one core)")]
        for seed in ctx.seeds(GRID_ORDER_SEEDS, "pallas-grid-order"):
            modes.append(CheckMode("tpu", f"TPU interpreter (2 cores, grid-order seed {seed})",
                                   available=untested is None, why_not=untested or "",
                                   options={"seed": seed, "detect_races": True, "out_of_bounds_reads": "raise",
                                            "uninitialized_memory": "nan"}))
        return modes

    def run_mode(self, ctx: ToolContext, mode: CheckMode, case: Case, ref: ReferenceRun) -> ModeRun:
        options = {INSTRUMENT: {"mode": mode.name, "seed": mode.options.get("seed")}}
        run = ctx.session.run_submission(case, ref, instruments=[INSTRUMENT], options=options,
                                         keep_inputs_after=False)
        if run.ok:
            data = (run.meta.get("instruments") or {}).get(INSTRUMENT) or {}
            defects = []
            if data.get("races_found"):
                first = (data.get("races") or ["(no report text)"])[0]
                defects.append(Defect("race", f"{data.get('race_count', 0)} race report(s); first: {first}"))
            if data.get("error"):
                defects.append(Defect("observer_error", data["error"]))
            return ModeRun(call=run.call, outputs=run.outputs, defects=defects, data=data)
        err = run.call.error or {}
        text = f"{err.get('message', '')}\n{err.get('traceback', '')}"
        found = _OOB.search(text)
        if found:
            return ModeRun(call=run.call, defects=[Defect("oob_read" if "read" in found.group(0) else "oob_write",
                                                          found.group(0)[:500])])
        if mode.name == "tpu" and err.get("type") == "NotImplementedError" \
                and _GPU_STYLE.search(ctx.source.text):
            return ModeRun(call=run.call, not_applicable=(
                "the TPU interpreter cannot run this GPU-style kernel "
                f"({err.get('type')}: {str(err.get('message', ''))[:200]})"))
        return ModeRun(call=run.call)

    # -- compile / lower ---------------------------------------------------------------------
    def lower(self, ctx: ToolContext) -> list[Lowered] | None:
        from tools.engine.cases import nominal_cases

        case = nominal_cases(ctx, 1, "lowering")[0]
        ref = ctx.session.reference(case)
        if not ref.ok:
            return [Lowered(kernel="?", target=t, status="unavailable", intended=True,
                            message=f"the reference failed, so there are no inputs to trace with: "
                                    f"{ref.call.failure_text()[:300]}") for t in ("tpu", "triton")]
        run = ctx.session.run_submission(case, ref, instruments=[INSTRUMENT], keep_inputs_after=False,
                                         options={INSTRUMENT: {"mode": "interpret", "lower": list(LOWER_TARGETS)}})
        if not run.ok:
            return [Lowered(kernel="?", target=t, status="unavailable", intended=True,
                            message=f"the submission did not run, so no pallas_call was traced: "
                                    f"{run.call.failure_text()[:300]}") for t in ("tpu", "triton")]
        data = (run.meta.get("instruments") or {}).get(INSTRUMENT) or {}
        calls = data.get("calls", [])
        ctx.facts.put(PallasCalls(case=case, calls=None if calls is None else tuple(calls)))
        if data.get("error"):
            return [Lowered(kernel="?", target=t, status="unavailable", intended=True, message=data["error"])
                    for t in ("tpu", "triton")]
        if not data.get("calls"):
            return [Lowered(kernel="?", target=t, status="unavailable", intended=True,
                            message="the submission ran without calling pallas_call: there is no Pallas kernel "
                                    "to lower (does it use its kernel at all?)") for t in ("tpu", "triton")]
        source = ctx.source.text
        out: list[Lowered] = []
        for call in data.get("calls", []):
            wanted = intended_targets(call.get("family"), ctx.submission, source)
            details = {k: call.get(k) for k in ("grid", "blocks", "dimension_semantics", "compiler_params")}
            line = call.get("line") if _in_submission(call.get("file"), ctx.submission) else None
            for entry in call.get("lowering", []):
                target = entry["platform"]
                status, rule = classify_lowering(entry, target in wanted)
                stem = f"{call.get('kernel', 'kernel')}-{target}"
                artifacts = {f"{stem}.kernel.txt": entry.get("kernel_ir", "")}
                if entry.get("module"):
                    artifacts[f"{stem}.stablehlo.mlir"] = entry["module"]
                out.append(Lowered(kernel=call.get("kernel", "?"), target=target, status=status,  # type: ignore[arg-type]
                                   intended=target in wanted, message=entry.get("message", ""), rule=rule,
                                   file=call.get("file"), line=line, artifacts=artifacts,
                                   details={**details, "error_type": entry.get("error_type"),
                                            "target_title": TARGET_TITLES[target]},
                                   seconds=float(entry.get("seconds", 0.0))))
        return out

    # -- static analysis ---------------------------------------------------------------------
    def static_findings(self, submission: Submission) -> list[StaticFinding]:
        out = []
        for i, text in enumerate(submission.source().splitlines(), 1):
            # Rationale: a hard-coded interpreter ships a kernel that never runs compiled on a device.
            if re.search(r"\binterpret\s*=\s*(?:True|pltpu\.InterpretParams|InterpretParams)", text):
                out.append(StaticFinding("interpret_hardcoded", "pallas_call hard-codes an interpreter "
                                         "(interpret=...): as submitted, the kernel never runs compiled on a "
                                         "TPU or GPU", line=i))
        return out


def _in_submission(file: str | None, submission: Submission) -> bool:
    return bool(file) and str(file).endswith("/" + submission.submission_file)
