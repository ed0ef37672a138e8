"""Compile the Triton kernels a submission launched for real GPU targets, on any machine.

1. The launches come from the ``triton_launches`` instrument (grid, argument dtypes/strides,
   constexprs, num_warps/num_stages of each distinct launch) recorded while the submission ran.
2. A dedicated sandbox child without ``TRITON_INTERPRET`` imports the submission and compiles each
   launch for each target (tools/engine/compilers/triton_child.py); TTGIR, PTX and cubin land in the run's
   artifacts.
3. This process runs ptxas ``-v`` on that PTX itself (Triton's flags) and parses the report: registers,
   spills, static shared memory. Dynamic shared memory is Triton's ``metadata.shared``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

import tools.engine.compilers.toolchain as toolchain
import tools.resources.amdgcn as amdgcn
from tools.engine.compilers.ptxas import KernelUsage, parse_ptxas
import tools.engine.sandbox.safe_files as safe_files
from tools.engine.sandbox import SandboxLimits, SandboxWorker

MAX_CONFIGS_PER_KERNEL = 3


class CompileTarget(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str  # "cuda" | "hip"
    arch: int | str  # 90 | "gfx942"
    warp_size: int = 32

    @property
    def label(self) -> str:
        return f"sm_{self.arch}" if self.backend == "cuda" else str(self.arch)

    @property
    def ptxas_arch(self) -> str:
        # Triton's own naming (sm_arch_from_capability): the "a" variants from sm_90 on
        return f"sm_{self.arch}{'a' if int(self.arch) >= 90 else ''}"

    def payload(self) -> dict[str, Any]:
        return {"backend": self.backend, "arch": self.arch, "warp_size": self.warp_size}


def parse_target(text: str) -> CompileTarget:
    """``sm_90`` / ``sm_80`` / ``90`` / ``gfx942`` -> a compile target."""
    t = text.strip().lower()
    if t.startswith("gfx"):
        return CompileTarget(backend="hip", arch=t, warp_size=64)
    m = re.fullmatch(r"(?:sm_?|compute_)?(\d{2,3})a?", t)
    if m is None:
        raise ValueError(f"not a compile target: {text!r} (use sm_90, sm_80, gfx942, ...)")
    return CompileTarget(backend="cuda", arch=int(m.group(1)))


class CompiledLaunch(BaseModel):
    """One captured launch compiled for one target, with what the compilers say about it."""

    model_config = ConfigDict(extra="forbid")

    kernel: str
    file: str | None = None
    line: int | None = None
    target: str
    launch: dict[str, Any] = Field(default_factory=dict)
    ok: bool = False
    error: str | None = None
    error_kind: str | None = None  # "compile" | "sandbox" | "ptxas" | "setup"
    usage: KernelUsage | None = None
    dynamic_smem: int = 0
    threads_per_block: int = 0
    compile: dict[str, Any] = Field(default_factory=dict)
    ptxas_command: str = ""
    ptxas_log: str = ""
    artifacts: list[str] = Field(default_factory=list)
    seconds: float = 0.0


def select_launches(launches: list[dict[str, Any]], limit: int = MAX_CONFIGS_PER_KERNEL
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """At most ``limit`` distinct launches per kernel, the most frequent first.

    Rationale: an autotuner launches every config while benchmarking, but the config it picks is
    launched again for every real call, so it has the highest count."""
    by_kernel: dict[str, list[dict[str, Any]]] = {}
    for entry in launches:
        by_kernel.setdefault(entry.get("qualname") or entry["kernel"], []).append(entry)
    chosen, skipped = [], []
    for entries in by_kernel.values():
        ranked = sorted(entries, key=lambda e: -int(e.get("count", 1)))
        chosen += ranked[:limit]
        skipped += ranked[limit:]
    return chosen, skipped


def launch_label(entry: dict[str, Any]) -> str:
    consts = ", ".join(f"{k}={v}" for k, v in sorted(entry.get("constexprs", {}).items()))
    opts = entry.get("options", {})
    extra = [f"num_warps={opts['num_warps']}"] if "num_warps" in opts else []
    extra += [f"num_stages={opts['num_stages']}"] if "num_stages" in opts else []
    return ", ".join(x for x in (consts, *extra) if x)


_OUTPUTS = ("ttgir", "ptx", "cubin", "amdgcn", "hsaco")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}")
_OUTPUT_CAP = 256 * 2**20


class TritonStaticCompiler:
    """A sandbox child that compiles (never runs) the submission's Triton kernels."""

    def __init__(self, *, workdir: Path, src_copy: Path, load: dict[str, Any],
                 limits: SandboxLimits, cuda_shim: bool, recorded_root: str | None,
                 artifacts: Path | None = None, virtual_gpu: dict[str, Any] | None = None) -> None:
        self.src = src_copy
        self.load_request = load  # the child's load request (SubmissionFormat.load_request)
        self.recorded_root = recorded_root
        self.limits = limits
        preludes = (["tools.engine.harness.cuda_shim"] if cuda_shim else []) + ["tools.engine.compilers.triton_child"]
        # Rationale: importing a submission that asks Triton's driver for its device at module level
        # (every current tutorial does) needs the same virtual device as the run children.
        preludes += ["tools.engine.harness.virtual_gpu"] if virtual_gpu else []
        # No TRITON_INTERPRET here: compiling for a GPU target needs the real JIT path.
        self.worker = SandboxWorker("triton-compile", workdir, limits, preludes=preludes,
                                    child_config={"device": "cpu", "cuda_shim": cuda_shim,
                                                  "virtual_gpu": virtual_gpu},
                                    writable=[])
        # Rationale: the child writes its compiler output in its own folder, never in the run's
        # artifacts: the parent copies the files it expects from there (regular files with the names
        # it expects, read without following links), then runs ptxas on its own copies
        self._scratch = workdir / "compile-out"
        self._n = 0
        self._loaded: bool | None = None
        self.load_error: str | None = None

    def _load(self) -> bool:
        if self._loaded and self.worker.alive:
            return True
        res = self.worker.call("load", self.load_request, timeout=self.limits.startup_timeout_s)
        self._loaded = res.answered and res.ok
        self.load_error = None if self._loaded else res.failure_text()[:1000]
        return bool(self._loaded)

    def compile(self, entry: dict[str, Any], target: CompileTarget, out_dir: Path, run_dir: Path,
                timeout: float) -> CompiledLaunch:
        base = CompiledLaunch(kernel=entry.get("qualname") or entry["kernel"], file=entry.get("file"),
                              line=entry.get("line"), target=target.label,
                              launch={k: entry.get(k) for k in ("grid", "constexprs", "options", "count")})
        if not self._load():
            return base.model_copy(update={"error": f"the submission could not be imported for compilation: "
                                                     f"{self.load_error}", "error_kind": "sandbox"})
        self._n += 1
        scratch = self._scratch / str(self._n)
        payload = {"launch": entry, "target": target.payload(), "out_dir": str(scratch),
                   "src_root": str(self.src), "recorded_root": self.recorded_root}
        res = self.worker.call("triton_static_compile", payload, timeout=timeout)
        if not res.answered:
            self._loaded = None
            kind = res.crash.kind if res.crash else "crash"
            return base.model_copy(update={"error": f"compile child {kind}: {res.failure_text()[:600]}",
                                           "error_kind": "sandbox", "seconds": res.duration_s})
        if not res.ok:
            err = res.error or {}
            return base.model_copy(update={"error": f"{err.get('type')}: {str(err.get('message'))[:1500]}",
                                           "error_kind": "compile", "seconds": res.duration_s})
        info = res.result
        files = self._collect(info.get("files"), scratch, out_dir)
        info = {**info, "files": files}
        artifacts = [str((out_dir / name).relative_to(run_dir)) for name in files.values()]
        threads = int(info.get("num_warps", 4)) * int(info.get("warp_size", target.warp_size))
        done = base.model_copy(update={"compile": info, "dynamic_smem": int(info.get("shared", 0)),
                                       "threads_per_block": threads, "artifacts": artifacts,
                                       "seconds": res.duration_s})
        if target.backend == "hip":
            return _amd_usage(done, out_dir / files.get("amdgcn", "missing.amdgcn"), target)
        if "ptx" not in files:
            return done.model_copy(update={"error": "Triton produced no PTX", "error_kind": "compile"})
        return run_ptxas(done, out_dir / files["ptx"], target, rel_dir=out_dir.relative_to(run_dir),
                         timeout=timeout)

    def _collect(self, files: Any, scratch: Path, out_dir: Path) -> dict[str, str]:
        """The compiler outputs the child names, copied from its folder to ``out_dir`` (the parent's):
        only plain file names with a known extension, only regular files of bounded size."""
        kept: dict[str, str] = {}
        out_dir.mkdir(parents=True, exist_ok=True)
        for ext, name in (files or {}).items() if isinstance(files, dict) else ():
            if ext not in _OUTPUTS or not isinstance(name, str) or not _PLAIN_NAME.fullmatch(name) \
                    or not name.endswith("." + ext):
                continue
            try:
                data = safe_files.read_bytes(scratch / name, anchor=self.worker.workdir, cap=_OUTPUT_CAP)
            except OSError:
                continue
            safe_files.write_bytes(out_dir / name, data, anchor=out_dir)
            kept[ext] = name
        return kept

    def close(self) -> None:
        self.worker.close()


def run_ptxas(done: CompiledLaunch, ptx: Path, target: CompileTarget, *, rel_dir: Path,
              timeout: float) -> CompiledLaunch:
    """ptxas -v on the PTX with Triton's own flags, in this (trusted) process."""
    ptxas = toolchain.ptxas_for(target.ptxas_arch)
    if ptxas is None:
        return done.model_copy(update={"error": "ptxas not found (neither in Triton's wheel nor a CUDA toolkit)",
                                       "error_kind": "setup"})
    cubin = ptx.with_suffix(".ptxas.cubin")
    cmd = [ptxas, "-lineinfo", "-v", "--regAllocOptLevel=2", f"--gpu-name={target.ptxas_arch}", ptx.name,
           "-o", cubin.name]
    run = toolchain.run_tool(cmd, cwd=ptx.parent, timeout=timeout)
    log = run.stderr + run.stdout
    (ptx.parent / f"{ptx.stem}.ptxas.log").write_text(log)
    update: dict[str, Any] = {"ptxas_command": run.command().replace(str(ptx.parent) + "/", ""),
                              "ptxas_log": log[-4000:], "seconds": done.seconds + run.seconds}
    report = parse_ptxas(log)
    usage = report.kernel(done.compile.get("name", ""), None) or (report.kernels[0] if report.kernels else None)
    if not run.ok or usage is None or usage.registers is None:
        why = "timed out" if run.timed_out else f"exit status {run.returncode}"
        return done.model_copy(update={**update, "error": f"ptxas failed ({why}): {log.strip()[-800:]}",
                                       "error_kind": "ptxas"})
    arts = [*done.artifacts, str(rel_dir / f"{ptx.stem}.ptxas.log")]
    sass = _sass(cubin, timeout)
    if sass is not None:
        arts.append(str(rel_dir / sass.name))
    return done.model_copy(update={**update, "ok": True, "usage": usage, "artifacts": arts})


def _sass(cubin: Path, timeout: float) -> Path | None:
    tool = toolchain.find("nvdisasm")
    if tool is None or not cubin.exists():
        return None
    run = toolchain.run_tool([tool, "-c", "-g", cubin.name], cwd=cubin.parent, timeout=timeout)
    if not run.ok:
        return None
    out = cubin.with_suffix(".sass")
    out.write_text(run.stdout)
    return out


def _amd_usage(done: CompiledLaunch, asm: Path, target: CompileTarget) -> CompiledLaunch:
    if not asm.exists():
        return done.model_copy(update={"error": "Triton produced no AMDGCN assembly", "error_kind": "compile"})
    usage = amdgcn.parse_amdgcn(asm.read_text(), done.compile.get("name", ""), str(target.arch))
    if usage is None:
        return done.model_copy(update={"error": "no register figures in the AMDGCN assembly", "error_kind": "compile"})
    return done.model_copy(update={"ok": True, "usage": usage})
