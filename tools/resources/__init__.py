"""resources: compile the submission's kernels for real GPU targets (no GPU needed) and judge their
registers, spills, shared memory and occupancy against each architecture's limits.

Triton: the launches captured by the ``triton_launches`` instrument are compiled in a sandbox child
without the interpreter (triton_static.py); CUDA C: the sources found by tools/engine/cuda_sources.py are
compiled with nvcc (cuda_static.py). Targets: ``[target] arch = [...]`` in kreview.toml, else the
architecture of ``[target] gpu``, else sm_90 and sm_80.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewer.core.models import Evidence
from tools.engine.results import ResourcesResult
from tools.engine.sandbox.safe_files import plain_name
from tools.engine.background import Background
from tools.engine.tool import Tool, ToolContext
from tools.engine.cases import nominal_cases
from tools.engine.compilable import compilable, nothing_to_compile
from tools.engine.facts import AutotuneLaunches, BuildOutcome, CompiledKernel, CompiledKernels, TritonLaunches
from tools.engine.formats import format_of
from tools.engine.cuda_sources import CudaSource, launch_bounds, launch_sites
from tools.engine.harness.case import Case
import tools.engine.compilers.toolchain as toolchain
from tools.resources.assess import Assessment, assess
from tools.resources.cuda_static import CudaCompile, compile_source, demangle
from tools.resources.triton_static import (
    CompiledLaunch,
    CompileTarget,
    TritonStaticCompiler,
    launch_label,
    parse_target,
    select_launches,
)
from tools.engine.gpus import find_device

DEFAULT_TARGETS = ("sm_90", "sm_80")
# Rationale: compiling with PyTorch's headers takes tens of seconds per architecture on two cores.
FULL_CUDA_TIMEOUT_S = 300.0


def targets_for(ctx: ToolContext) -> tuple[list[CompileTarget], bool]:
    """Compile targets and whether the submission declared them."""
    t = ctx.submission.target
    if t.arch:
        return [parse_target(a) for a in t.arch], True
    dev = find_device(t.gpu)
    if dev is not None:
        return [parse_target(dev.arch)], True
    return [parse_target(a) for a in DEFAULT_TARGETS], False


def compiled_kernels(items: list[Evidence]) -> CompiledKernels:
    """The fact left for readers of the compiled code: the kernels whose code these items kept."""
    kernels = []
    for e in items:
        code = next((a for a in e.artifacts if a.endswith((".ttgir", ".sass"))), None)
        if code is None:
            continue
        ptx = next((a for a in e.artifacts if a.endswith(".ptx")), None) if code.endswith(".ttgir") else None
        kernels.append(CompiledKernel(compiler="triton" if code.endswith(".ttgir") else "nvcc", code=code, ptx=ptx,
                                      item=e))
    return CompiledKernels(kernels=tuple(kernels), notes=tuple(e.summary for e in items))


_COMPILE_ASSERT = re.compile(r"CompileTimeAssertionFailure[^\n]*|static_assert[^\n]*")


def _pruned_by_autotuner(r: CompiledLaunch) -> str | None:
    """Why the autotuner would prune this compiled config (a failing tl.static_assert, or shared memory or
    registers over the target's limit: OutOfResources at launch), or None."""
    if not r.ok or r.usage is None:
        m = _COMPILE_ASSERT.search(r.error or "") if r.error_kind == "compile" else None
        return m.group(0) if m else None
    a = assess(r.kernel, r.target, r.usage, threads_per_block=r.threads_per_block, dynamic_smem=r.dynamic_smem)
    return a.summary if a.defect in ("smem_over_limit", "registers_over_limit") else None


@dataclass(frozen=True)
class _PreparedCompiler:
    """The compile child ``ResourcesTool.prepare`` started ahead; ``taken`` once the tool used or closed it."""
    compiler: TritonStaticCompiler
    taken: bool = False


@dataclass(frozen=True)
class _CompilesAhead:
    """What ``ResourcesTool.ahead`` did for the nominal ``case``: the launches captured (``data``, or None and
    ``why``), the launches chosen and not, and the compiles running in the background (None where nothing
    was captured)."""
    case: Case
    data: dict[str, Any] | None
    why: str
    chosen: list[dict[str, Any]]
    skipped: list[dict[str, Any]]
    job: Background[list[tuple[dict[str, Any], list[CompiledLaunch]]]] | None


def _compile_all(compiler: TritonStaticCompiler, chosen: list[dict[str, Any]], targets: list[CompileTarget],
                 art: Path, run_dir: Path, timeout: float, stopping: threading.Event | None = None
                 ) -> list[tuple[dict[str, Any], list[CompiledLaunch]]]:
    """Each chosen launch compiled for each target (the compile child, then ptxas and nvdisasm here); the
    compiler is closed after. ``stopping`` set (work started ahead, stopped): nothing more is compiled."""
    try:
        results: list[tuple[dict[str, Any], list[CompiledLaunch]]] = []
        for i, entry in enumerate(chosen):
            # the kernel's name is the submission's (captured in its child): one plain name here
            folder = art / f"{i}-{plain_name(entry['kernel'])}"
            per_target = []
            for target in targets:
                if stopping is not None and stopping.is_set():
                    return results
                per_target.append(compiler.compile(entry, target, folder / target.label, run_dir, timeout))
            results.append((entry, per_target))
        return results
    finally:
        compiler.close()


@dataclass(frozen=True)
class _CudaApart:
    """nvcc on each CUDA source with a text, for each CUDA target, started at the plan
    (``ResourcesTool.start_apart``): the results by source index."""
    job: Background[dict[int, list[CudaCompile]]]


def _compile_cuda(sources: list[CudaSource], targets: list[CompileTarget], art: Path, run_dir: Path,
                  timeout: float, stopping: threading.Event | None = None) -> dict[int, list[CudaCompile]]:
    """Each CUDA source that has a text compiled for each target (nvcc, here); ``stopping`` set (work started
    at the plan, stopped): no more."""
    out: dict[int, list[CudaCompile]] = {}
    for i, src in enumerate(sources):
        if src.text is None or (stopping is not None and stopping.is_set()):
            continue
        folder = art / f"{i}-{Path(src.file).stem}"
        out[i] = [compile_source(src, target.label, folder, folder.relative_to(run_dir), timeout=timeout,
                                 full_timeout=max(FULL_CUDA_TIMEOUT_S, timeout)) for target in targets]
    return out


class ResourcesTool(Tool):
    name = "resources"
    result_model = ResourcesResult
    criteria = ("resources",)
    after = ("builds",)
    leaves = (CompiledKernels, TritonLaunches)
    description = "compile for sm_90/sm_80 without a GPU: registers, spills, shared memory, occupancy"

    def applies(self, ctx: ToolContext) -> str | None:
        return nothing_to_compile(ctx.submission)

    def prepare(self, ctx: ToolContext) -> None:
        # the compile child (its interpreter, torch and Triton imports) starts while earlier tools run
        if compilable(ctx.submission).triton and ctx.setup.can_run:
            compiler = self._compiler(ctx)
            compiler.worker.launch()
            ctx.facts.put(_PreparedCompiler(compiler))

    # Rationale: the Triton compiles wait on the compile child, ptxas and nvdisasm, never on the submission
    # child: once correctness has ended, the one call that captures the launches is made and the compiles
    # run in a thread beside the generality search, whose chain of single calls leaves a core idle. On the
    # README demo they were a second of that chain (issue 34). The same calls, on the same launches; the
    # capture is made before the search instead of after numerics.
    ahead_after = "correctness"

    def ahead(self, ctx: ToolContext) -> None:
        if not (compilable(ctx.submission).triton and ctx.setup.can_run) or _CompilesAhead in ctx.facts:
            return
        if "autotune" in ctx.plan.tools and AutotuneLaunches not in ctx.facts:
            return  # the autotuner's configs are compiled too; without them the tool compiles when it runs
        case = nominal_cases(ctx, 1, "resources")[0]
        data, why = self._launches(ctx, case)
        # what ``_triton`` compiles: nothing where no launch was captured (its item says so)
        chosen, skipped = self._chosen(ctx, data) if data is not None and data.get("launches") else ([], [])
        job = None
        if chosen:
            targets, _ = targets_for(ctx)
            compiler, art, run_dir = self._take_compiler(ctx), ctx.artifact_dir(self.name) / "triton", ctx.run_dir
            timeout = ctx.options.limits.call_timeout_s
            job = ctx.start_background(
                lambda stopping: _compile_all(compiler, chosen, targets, art, run_dir, timeout, stopping),
                name="resources-compiles", on_stop=compiler.worker.interrupt)
        ctx.facts.put(_CompilesAhead(case, data, why, chosen, skipped, job))

    # Rationale: nvcc on CUDA sources needs nothing of a run: it starts at the plan, beside every tool before
    # this one (the lowering tool's own nvcc included), and the tool takes its results when it runs.
    def start_apart(self, ctx: ToolContext) -> None:
        sources = list(compilable(ctx.submission).cuda_sources)
        targets = [t for t in targets_for(ctx)[0] if t.backend == "cuda"]
        if sources and targets:
            art, run_dir, timeout = ctx.artifact_dir(self.name) / "cuda", ctx.run_dir, ctx.options.limits.call_timeout_s
            ctx.facts.put(_CudaApart(ctx.start_background(
                lambda stopping: _compile_cuda(sources, targets, art, run_dir, timeout, stopping),
                name="resources-nvcc")))

    def run(self, ctx: ToolContext) -> None:
        try:
            self._run(ctx, None)
        finally:
            # work started early whose result this run did not take (it raised first) ends with the tool
            for fact in (ctx.facts.get(_CompilesAhead), ctx.facts.get(_CudaApart)):
                if fact is not None and fact.job is not None:
                    fact.job.stop()
            prepared = ctx.facts.get(_PreparedCompiler)
            if prepared is not None and not prepared.taken:  # started, not used (no launch to compile)
                prepared.compiler.close()
                ctx.facts.put(_PreparedCompiler(prepared.compiler, taken=True))

    def _compiler(self, ctx: ToolContext) -> TritonStaticCompiler:
        """The sandbox child that compiles the submission's Triton kernels, on its own copy of the submission."""
        sub = ctx.submission
        workdir = ctx.session.root / "triton-compile"
        src = workdir / "src"
        from tools.engine.session import _copy_tree  # the same copy rules as the run children

        _copy_tree(sub.root_path, src)
        return TritonStaticCompiler(workdir=workdir, src_copy=src,
                                    load=format_of(sub).load_request(sub, "submission", src),
                                    limits=ctx.options.limits,
                                    cuda_shim=not ctx.device.has_gpu,
                                    virtual_gpu=ctx.session.child_config().get("virtual_gpu"),
                                    recorded_root=str(ctx.session.root / "submission" / "src"),
                                    artifacts=ctx.artifact_dir(self.name) / "triton")

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        self._run(ctx, case)

    def _run(self, ctx: ToolContext, case: Case | None) -> None:
        targets, declared = targets_for(ctx)
        found = compilable(ctx.submission)
        if found.triton:
            self._triton(ctx, case or nominal_cases(ctx, 1, "resources")[0], targets, declared)
        if found.cuda_sources:
            self._cuda(ctx, list(found.cuda_sources), [t for t in targets if t.backend == "cuda"], declared)
        ctx.facts.put(compiled_kernels(ctx.prior(self.name)))

    # -- common ------------------------------------------------------------------------------
    def _record(self, ctx: ToolContext, a: Assessment, *, check: str, inputs: dict[str, Any],
                config: dict[str, Any], extra: dict[str, Any], line: int | None, rerun: str,
                artifacts: list[str], duration: float) -> Evidence:
        spans = ctx.submission_span(line) if line else []
        ev = ctx.add_evidence(self, outcome=a.outcome, defect=a.defect, summary=a.summary, check=check,
                              inputs=inputs, config=config, result={**a.result, **extra}, spans=spans,
                              rerun=rerun, artifacts=artifacts, duration_s=duration)
        for f in a.findings:
            ctx.add_finding(origin="tool", category=f["category"], severity=f["severity"], message=f["message"],
                            spans=spans, confirmed_by=[ev.id])
        return ev

    def _failed(self, ctx: ToolContext, *, what: str, target: CompileTarget, error: str, kind: str | None,
                declared: bool, all_targets_failed: bool, rerun: str, inputs: dict[str, Any],
                config: dict[str, Any], line: int | None, duration: float, artifacts: list[str]) -> None:
        # Rationale: a compile error is the submission's defect on a target it declared, or when it
        # compiles for none of the targets tried; for one default target of several it may simply
        # use features of another generation (TMA, wgmma), which is not a defect.
        own = kind == "compile" and (declared or all_targets_failed)
        summary = f"{what} does not compile for {target.label}: {error[:400]}" if kind == "compile" else \
            f"{what} not compiled for {target.label}: {error[:400]}"
        ctx.add_evidence(self, outcome="fail" if own else "unverified",
                         defect="compile_error" if kind == "compile" else "static_compile_unavailable",
                         summary=summary, reason=None if own else (
                             f"{error[:300]}" + ("" if kind != "compile" else
                                                 f" (no target declared; {target.label} is a default target)")),
                         check=f"static compile for {target.label}", inputs=inputs, config=config,
                         result={"error": error[-4000:], "error_kind": kind}, rerun=rerun,
                         spans=ctx.submission_span(line) if line else [], duration_s=duration, artifacts=artifacts)

    # -- Triton ------------------------------------------------------------------------------
    def _launches(self, ctx: ToolContext, case: Case) -> tuple[dict[str, Any] | None, str]:
        cached = ctx.facts.get(TritonLaunches)
        if cached is not None and not cached.report.get("error"):
            return cached.report, ""
        if not ctx.setup.can_run:
            return None, ctx.setup.why_not
        built = ctx.facts.get(BuildOutcome)
        if built is not None and built.failed:
            return None, f"the submission did not run ({built.why[:200]})"
        ref = ctx.session.reference(case)
        if not ref.ok:
            return None, f"the reference failed: {ref.call.failure_text()[:200]}"
        run = ctx.session.run_submission(case, ref, instruments=["triton_launches"], keep_inputs_after=False)
        if not run.ok:
            return None, f"the submission failed while its launches were captured: {run.call.failure_text()[:300]}"
        data = run.meta.get("instruments", {}).get("triton_launches")
        if not isinstance(data, dict) or data.get("error"):
            return None, f"the triton_launches instrument reported nothing usable: {str(data)[:200]}"
        ctx.facts.put(TritonLaunches(data))
        return data, ""

    def _chosen(self, ctx: ToolContext, data: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The captured launches to compile and those left out; with every autotune config the autotune tool ran."""
        chosen, skipped = select_launches(data.get("launches", []))
        # Rationale: on a GPU any autotune config may win, so each one the autotune tool ran is
        # compiled for every target too, not only the one the run happened to use.
        tuned = ctx.facts.get(AutotuneLaunches)
        for entry in tuned.launches if tuned is not None else ():
            key = (entry.get("qualname"), entry.get("constexprs"), entry.get("options"))
            if all((c.get("qualname"), c.get("constexprs"), c.get("options")) != key for c in chosen):
                chosen.append(entry)
        return chosen, skipped

    def _take_compiler(self, ctx: ToolContext) -> TritonStaticCompiler:
        """The compile child ``prepare`` started, or a new one; the caller closes it."""
        prepared = ctx.facts.get(_PreparedCompiler)
        compiler = prepared.compiler if prepared is not None and not prepared.taken else self._compiler(ctx)
        if prepared is not None:
            ctx.facts.put(_PreparedCompiler(prepared.compiler, taken=True))
        return compiler

    def _triton(self, ctx: ToolContext, case: Case, targets: list[CompileTarget], declared: bool) -> None:
        rerun = ctx.rerun(self.name, case)
        ahead = ctx.facts.get(_CompilesAhead)
        if ahead is not None and ahead.case != case:
            ahead = None
        data, why = (ahead.data, ahead.why) if ahead is not None else self._launches(ctx, case)
        if data is None:
            ctx.add_evidence(self, outcome="unverified", defect="no_launch_captured",
                             summary=f"Triton kernels not compiled: no launch was captured ({why})", reason=why,
                             check="capture launches (triton_launches), then triton.compile per target",
                             inputs={"case": case.model_dump()}, rerun=rerun)
            return
        launches = data.get("launches", [])
        if not launches:
            ctx.add_evidence(self, outcome="unverified", defect="no_kernel_launched",
                             summary=f"the submission launched no Triton kernel on {case.label}; nothing to compile",
                             reason="no Triton launch observed", check="triton_launches instrument",
                             inputs={"case": case.model_dump()}, result={"instrument": data}, rerun=rerun)
            return
        if ahead is not None and ahead.job is not None:
            chosen, skipped, results = ahead.chosen, ahead.skipped, ahead.job.result()
        else:
            chosen, skipped = self._chosen(ctx, data)
            results = _compile_all(self._take_compiler(ctx), chosen, targets, ctx.artifact_dir(self.name) / "triton",
                                   ctx.run_dir, ctx.options.limits.call_timeout_s)
        tuned = ctx.facts.get(AutotuneLaunches)
        versions = {"triton_ptxas": toolchain.version(p) if (p := toolchain.find("ptxas")) else "absent"}
        autotuned = {e.get("qualname") for e in (tuned.launches if tuned is not None else ())}
        pruned = {(id(entry), r.target): why for entry, per_target in results for r in per_target
                  if entry.get("qualname") in autotuned and (why := _pruned_by_autotuner(r)) is not None}
        survives = {(entry.get("qualname"), r.target) for entry, per_target in results for r in per_target
                    if r.ok and r.usage is not None and (id(entry), r.target) not in pruned}
        for entry, per_target in results:
            all_failed = all(r.error_kind == "compile" for r in per_target)
            line = self._line_in_submission(ctx, entry)
            note = launch_label(entry)
            inputs = {"case": case.model_dump(), "launch": {k: entry.get(k) for k in
                                                             ("kernel", "grid", "constexprs", "options", "count")},
                      "args": entry.get("args", {})}
            for r in per_target:
                target = next(t for t in targets if t.label == r.target)
                config = {"target": target.model_dump(), "declared_targets": declared, **versions,
                          "ptxas_command": r.ptxas_command,
                          "pointer_alignment": "pointers assumed 16-byte aligned plus the recorded storage offset"}
                why = pruned.get((id(entry), r.target))
                if why is not None and (entry.get("qualname"), r.target) in survives:
                    # Rationale: Triton's autotuner benchmarks every config and gives one that raises
                    # OutOfResources or CompileTimeAssertionFailure an infinite time: it never runs it, so
                    # such a config is no defect while another config of the kernel runs on this target.
                    ctx.add_evidence(self, outcome="info", defect="autotune_config_pruned",
                                     summary=f"Triton kernel {r.kernel} ({note}) on {r.target}: pruned by the "
                                             f"autotuner itself ({why[:300]}); other configs run",
                                     check=f"static compile for {r.target}", inputs=inputs, config=config,
                                     result={"error": (r.error or "")[-2000:], "pruned_because": why}, rerun=rerun,
                                     spans=ctx.submission_span(line) if line else [], duration_s=r.seconds,
                                     artifacts=r.artifacts)
                    continue
                if not r.ok or r.usage is None:
                    self._failed(ctx, what=f"Triton kernel {r.kernel} ({note})", target=target, error=r.error or "",
                                 kind=r.error_kind, declared=declared, all_targets_failed=all_failed, rerun=rerun,
                                 inputs=inputs, config=config, line=line, duration=r.seconds, artifacts=r.artifacts)
                    continue
                a = assess(r.kernel, r.target, r.usage, threads_per_block=r.threads_per_block,
                           dynamic_smem=r.dynamic_smem, launch_note=note)
                self._record(ctx, a, check=f"triton.compile for {r.target} (TTGIR/PTX kept) + ptxas -v",
                             inputs=inputs, config=config,
                             extra={"compile": {k: v for k, v in r.compile.items() if k != "files"},
                                    "compile_seconds": round(r.seconds, 3)},
                             line=line, rerun=rerun, artifacts=r.artifacts, duration=r.seconds)
        if skipped:
            ctx.add_evidence(self, outcome="info", summary=f"{len(skipped)} further launch configuration(s) not "
                             f"compiled (at most {len(chosen)} per kernel, most frequent first)",
                             check="launch selection", result={"skipped": [launch_label(e) for e in skipped]},
                             rerun=rerun)
        if data.get("truncated"):
            ctx.add_evidence(self, outcome="info", summary="more than 64 distinct Triton launches; the rest were "
                             "not recorded", check="triton_launches instrument", rerun=rerun)

    def _line_in_submission(self, ctx: ToolContext, entry: dict[str, Any]) -> int | None:
        file = entry.get("file")
        if not file or not entry.get("line"):
            return None
        recorded = ctx.session.root / "submission" / "src"
        try:
            rel = Path(file).relative_to(recorded)
        except ValueError:
            return None
        return int(entry["line"]) if str(rel) == ctx.submission.submission_file else None

    # -- CUDA C ------------------------------------------------------------------------------
    def _cuda(self, ctx: ToolContext, sources: list[CudaSource], targets: list[CompileTarget], declared: bool) -> None:
        rerun = ctx.rerun(self.name)
        nvcc = toolchain.find("nvcc")
        config_base = {"nvcc": toolchain.version(nvcc) if nvcc else "absent", "declared_targets": declared}
        apart = ctx.facts.get(_CudaApart)
        compiled = apart.job.result() if apart is not None else \
            _compile_cuda(sources, targets, ctx.artifact_dir(self.name) / "cuda", ctx.run_dir,
                          ctx.options.limits.call_timeout_s)
        for i, src in enumerate(sources):
            line = src.line if src.file == ctx.submission.submission_file else None
            if src.text is None:
                ctx.add_evidence(self, outcome="unverified", defect="source_unresolved",
                                 summary=f"CUDA source {src.label} could not be recovered without running the code: "
                                         f"{src.unresolved}", reason=src.unresolved,
                                 check="static extraction of load_inline/load sources", rerun=rerun,
                                 spans=ctx.submission_span(line) if line else [])
                continue
            results = compiled[i]
            all_failed = all(r.error_kind == "compile" for r in results)
            for target, r in zip(targets, results):
                config = {**config_base, "target": target.label, "mode": r.mode, "mode_note": r.note,
                          "nvcc_command": r.command, "attempts": r.attempts}
                inputs = {"source": src.label, "functions": list(src.functions),
                          "extra_cuda_cflags": list(src.extra_cuda_cflags)}
                if not r.ok:
                    self._failed(ctx, what=f"CUDA source {src.label}", target=target, error=r.error or "",
                                 kind=r.error_kind, declared=declared, all_targets_failed=all_failed, rerun=rerun,
                                 inputs=inputs, config=config, line=line, duration=r.seconds, artifacts=r.artifacts)
                    continue
                self._cuda_kernels(ctx, src, r, target, rerun=rerun, inputs=inputs, config=config, line=line)

    def _cuda_kernels(self, ctx: ToolContext, src: CudaSource, r: CudaCompile, target: CompileTarget, *, rerun: str,
                      inputs: dict[str, Any], config: dict[str, Any], line: int | None) -> None:
        assert src.text is not None
        sites = launch_sites(src.text)
        bounds = launch_bounds(src.text)
        names = {k.name for k in r.report.kernels} | {e.kernel for e in r.report.limit_errors}
        if not names:
            ctx.add_evidence(self, outcome="info", summary=f"{src.label} compiled for {target.label}, but it defines "
                             "no __global__ kernel", check=f"nvcc -cubin -arch={target.label}", config=config,
                             inputs=inputs, rerun=rerun, artifacts=r.artifacts, duration_s=r.seconds)
            return
        for usage in r.report.kernels:
            plain = demangle(usage.name)
            mine = [s for s in sites if s.kernel == plain]
            threads = max((s.block_threads for s in mine if s.block_threads), default=None)
            dyn = max((s.dynamic_smem for s in mine if s.dynamic_smem is not None), default=None)
            how = "block size from its launch site" if threads else ""
            if threads is None and plain in bounds:
                threads, how = bounds[plain], "block size assumed from __launch_bounds__"
            if dyn is None and not mine:
                dyn = 0
            if not usage.cmem and usage.name in r.resources:
                usage.cmem = {"cmem[0]": r.resources[usage.name].get("CONSTANT[0]", 0)}
            limit_errors = [e.model_dump() for e in r.report.limit_errors if e.kernel == usage.name]
            a = assess(plain, target.label, usage, threads_per_block=threads, dynamic_smem=dyn,
                       launch_note=", ".join(x for x in (how, "dynamic shared memory unknown" if dyn is None else "")
                                             if x), static_limit_errors=limit_errors)
            self._record(ctx, a, check=f"nvcc -cubin -arch={target.label} -Xptxas -v ({r.mode})",
                         inputs=inputs, config=config,
                         extra={"mangled": usage.name, "launch_sites": [s.__dict__ for s in mine],
                                "cuobjdump": r.resources.get(usage.name, {})},
                         line=line, rerun=rerun, artifacts=r.artifacts, duration=r.seconds)
        for err in r.report.limit_errors:
            if r.report.kernel(err.kernel) is None:
                msg = (f"{demangle(err.kernel)} on {target.label}: ptxas refused {err.used} bytes of static "
                       f"{err.space} memory (limit {err.limit} bytes)")
                ev = ctx.add_evidence(self, outcome="fail", defect="smem_over_limit", summary=msg,
                                      check=f"nvcc -cubin -arch={target.label} -Xptxas -v", inputs=inputs,
                                      config=config, result={"ptxas_error": err.model_dump()}, rerun=rerun,
                                      artifacts=r.artifacts, spans=ctx.submission_span(line) if line else [])
                ctx.add_finding(origin="tool", category="smem_over_limit", severity="error", message=msg,
                                confirmed_by=[ev.id])

