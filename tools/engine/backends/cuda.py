"""CUDA C/C++ kernels: KernelBench ``load_inline`` submissions and standalone ``.cu`` files.

Run: only on a machine with a CUDA device and a CUDA build of torch (``load_inline`` needs nvcc and
the CUDA libraries; a CPU torch cannot build the extension at all). Without one, ``can_run`` is
False and every run-based criterion is unverified with that reason.
Compile: ``nvcc -ptx`` of every CUDA source (``.cu`` files, ``cuda_sources`` of ``load_inline``
calls read from the AST without running anything) for the target architectures, on any machine
with nvcc; the PTX and the compiler log are kept.
Check modes: compute-sanitizer ``memcheck``, ``racecheck``, ``initcheck`` and ``synccheck``, each
on a fresh child that runs the submission once under it (GPU only, when compute-sanitizer exists).

Source extraction here is deliberately small (string literals and module-level string constants);
tools/engine/cuda_sources.py, where present, is the fuller extractor the resources tools use.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tools.engine.backends.base import (
    Backend,
    CheckMode,
    Defect,
    Lowered,
    ModeRun,
    StaticFinding,
)
import tools.engine.backends.compute_sanitizer as compute_sanitizer
import tools.engine.compilers.toolchain as toolchain
from tools.engine.backends.compute_sanitizer import SANITIZER_TOOLS, parse_sanitizer_log  # noqa: F401 - re-exported
from tools.engine.backends.cuda_tools import find_compute_sanitizer, find_nvcc  # noqa: F401 - re-exported
from tools.engine.runsetup import DeviceInfo, RunSetup
import tools.engine.sandbox.safe_files as safe_files

if TYPE_CHECKING:
    from reviewer.core.submission import Submission
    from tools.engine.tool import ToolContext
    from tools.engine.harness.case import Case
    from tools.engine.session import ReferenceRun

DEFAULT_ARCHS = ("sm_90",)
# Rationale: nvcc of one load_inline source with the torch headers took 22 s on a loaded 2-core
# machine (measured); three times that before calling it a hang.
NVCC_TIMEOUT_S = 180.0
# the sanitizer's log is read back from the child's folder: bounded
_NO_GPU = "CUDA C kernels need a CUDA device and a CUDA build of torch; this machine has neither"


@dataclass(frozen=True)
class CudaUnit:
    """One CUDA translation unit: a ``.cu`` file or the ``cuda_sources`` of a ``load_inline`` call."""

    name: str
    text: str
    file: str
    line: int
    """Line of ``file`` holding the first character of ``text`` (1 for a .cu file)."""
    prelude: str = ""


# -- sources: one extraction for the whole project (tools/engine/cuda_sources.py) -----------------------
def cuda_sources(submission: Submission) -> tuple[list[CudaUnit], list[str]]:
    """Every CUDA translation unit of the submission, and why any could not be recovered statically."""
    import tools.engine.cuda_sources as shared

    py_files = [f for f in submission.source_files if f.endswith(".py")]
    out: list[CudaUnit] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for src in shared.find_cuda_sources(submission.root_path, py_files):
        if src.text is None:
            problems.append(f"{src.file}:{src.line}: {src.unresolved}; it cannot be compiled without running "
                            "the submission")
            continue
        name = src.name or Path(src.file).stem
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}_{seen[name] - 1}"
        prelude = ("\n".join(shared.IMPLICIT_CUDA_HEADERS) + "\n"
                   if src.origin == "load_inline" and src.implicit_headers else "")
        out.append(CudaUnit(name=name, text=src.text, file=src.file, line=_text_start_line(submission, src),
                            prelude=prelude))
    return out, problems


def _text_start_line(submission: Submission, src: object) -> int:
    """The file line holding ``src.text``'s first character, found by matching its first non-blank
    line near the line the extractor reports (which points at content, not at a leading newline)."""
    text: str = src.text  # type: ignore[attr-defined]
    line: int = src.line  # type: ignore[attr-defined]
    if src.origin != "load_inline":  # type: ignore[attr-defined]
        return line
    lines = text.split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        return line
    try:
        file_lines = submission.path(src.file).read_text(errors="replace").splitlines()  # type: ignore[attr-defined]
    except OSError:
        return line
    for cand in (line, line + 1, line - 1, line + 2, line - 2):
        if 1 <= cand <= len(file_lines) and file_lines[cand - 1].strip() == lines[first].strip():
            return max(cand - first, 1)
    return line


# -- toolchain ------------------------------------------------------------------------------------
def _include_flags() -> list[str]:
    import sysconfig

    from torch.utils.cpp_extension import include_paths

    # Rationale: the stand-in directory comes last, so it only fills in a header torch lacks.
    stand_in = Path(__file__).with_name("cuda_include")
    return [f"-I{p}" for p in [*include_paths(), sysconfig.get_paths()["include"], str(stand_in)]]


def compile_ptx(src: CudaUnit, arch: str, nvcc: str, workdir: Path) -> Lowered:
    """``nvcc -ptx`` of one source for ``arch`` in a scratch folder, in the sandbox."""
    workdir.mkdir(parents=True, exist_ok=True)
    cu = workdir / f"{src.name}.cu"
    cu.write_text(src.prelude + src.text)
    ptx = workdir / f"{src.name}.{arch}.ptx"
    # Rationale: file names relative to the scratch folder (nvcc runs in it), so the command an item
    # records names no temporary path and reads the same on every rerun
    cmd = [nvcc, "-ptx", f"-arch={arch}", "-std=c++17", "-w", *_include_flags(), cu.name, "-o", ptx.name]
    base = Lowered(kernel=src.name, target=arch, status="unavailable", intended=True, file=src.file,
                   details={"command": " ".join(cmd)})
    # in the sandbox (tools/engine/compilers/toolchain.py): the source is the submission's
    run = toolchain.run_tool(cmd, cwd=workdir, timeout=NVCC_TIMEOUT_S)
    base.seconds = run.seconds
    if run.timed_out:
        base.message = f"nvcc did not finish within {NVCC_TIMEOUT_S:g}s"
        return base
    log = (run.stdout + run.stderr).replace(str(workdir) + "/", "")
    base.artifacts = {f"{src.name}.{arch}.nvcc.log": log}
    if run.returncode == 0 and ptx.exists():
        base.status = "ok"
        base.artifacts[ptx.name] = ptx.read_text(errors="replace")
        base.message = f"compiled to PTX for {arch}"
        return base
    errors = [ln for ln in log.splitlines() if " error" in ln or ln.startswith("error")]
    missing = [ln for ln in errors if "cannot open source file" in ln or "No such file" in ln]
    if missing:
        # Rationale: a header this machine lacks (a CPU torch without some CUDA headers, a library
        # not installed) says nothing about the kernel: unverified, not a build failure.
        base.message = "a header the source includes is not available here: " + missing[0][:300]
        return base
    base.status = "rejected"
    base.rule = "compile_error"
    base.message = "\n".join(errors[:5]) or log[-1500:]
    base.line = _error_line(errors, src)
    return base


def _error_line(errors: list[str], src: CudaUnit) -> int | None:
    """The submission line of the first nvcc error, counting the prelude load_inline adds."""
    for err in errors:
        m = re.search(r"\.cu\((\d+)\)", err)
        if m:
            line = int(m.group(1)) - src.prelude.count("\n")
            if line >= 1:
                return src.line + line - 1
    return None


def _line_mapper(submission: Submission) -> Callable[[str, int], int | None]:
    """Map a line of the compiled file to the submission file: the .cu submission itself, or the
    ``cuda.cu`` load_inline writes (its 3 include lines, then the single cuda_sources string)."""
    sources, _ = cuda_sources(submission)
    inline = [s for s in sources if s.prelude and s.file == submission.submission_file]

    def map_line(file: str, line: int) -> int | None:
        name = Path(file).name
        if name == Path(submission.submission_file).name and submission.submission_file.endswith(".cu"):
            return line
        if name == "cuda.cu" and len(inline) == 1:
            mapped = inline[0].line + line - 1 - inline[0].prelude.count("\n")
            return mapped if mapped >= inline[0].line else None
        return None

    return map_line


class CudaBackend(Backend):
    name = "cuda"
    markers = (r"load_inline", r"cpp_extension", r"__global__", r"<<<")
    marker_suffixes = frozenset({".cu", ".cuh"})
    source_suffixes = frozenset({".cu", ".cuh", ".cpp", ".h", ".hpp"})
    priority = 30
    supports_static_compile = True
    lowers_apart = True  # nvcc -ptx on the sources found without running anything
    supports_sanitizer = True
    launch_count = "uncounted"

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        if not device.has_gpu:
            # Rationale: the submission cannot run here, but the reference still does (the roofline
            # counts its work); a reference written with .cuda() needs the same CPU mapping as elsewhere.
            return RunSetup(can_run=False, why_not=_NO_GPU, preludes=("tools.engine.harness.cuda_shim",),
                            note="reference only: device='cuda' requests mapped to CPU")
        if find_nvcc() is None:
            return RunSetup(can_run=False, why_not="this machine has a CUDA device but no nvcc (CUDA_HOME unset, "
                                                   "nvcc not on PATH): load_inline cannot build the extension")
        return RunSetup(can_run=True, note=f"CUDA on {device.name}")

    # -- compile -----------------------------------------------------------------------------
    def lower(self, ctx: ToolContext) -> list[Lowered] | None:
        sources, problems = cuda_sources(ctx.submission)
        archs = [a for a in ctx.submission.target.arch if re.fullmatch(r"sm_\d+a?", a)] or list(DEFAULT_ARCHS)
        out = [Lowered(kernel="?", target=a, status="unavailable", intended=True, message=p)
               for p in problems for a in archs]
        if not sources:
            if not problems:
                out.append(Lowered(kernel="?", target=archs[0], status="unavailable", intended=True,
                                   message="no CUDA source found (.cu file or a static load_inline cuda_sources)"))
            return out
        nvcc = find_nvcc()
        if nvcc is None:
            return out + [Lowered(kernel=s.name, target=a, status="unavailable", intended=True, file=s.file,
                                  message="nvcc is not installed here (not on PATH, no CUDA_HOME)")
                          for s in sources for a in archs]
        with tempfile.TemporaryDirectory(prefix="kreview-nvcc-") as tmp:
            for src in sources:
                for arch in archs:
                    out.append(compile_ptx(src, arch, nvcc, Path(tmp) / f"{src.name}-{arch}"))
        return out

    # -- dynamic checks ----------------------------------------------------------------------
    def check_modes(self, ctx: ToolContext) -> list[CheckMode]:
        if not ctx.device.has_gpu:
            return compute_sanitizer.modes(ctx, unavailable=f"compute-sanitizer needs a CUDA device; {_NO_GPU}")
        return compute_sanitizer.modes(ctx)

    def run_mode(self, ctx: ToolContext, mode: CheckMode, case: Case, ref: ReferenceRun) -> ModeRun:
        return compute_sanitizer.run_mode(ctx, mode, case, ref, _line_mapper(ctx.submission))

    # -- static analysis ---------------------------------------------------------------------
    def static_findings(self, submission: Submission) -> list[StaticFinding]:
        sources, _ = cuda_sources(submission)
        out = []
        for src in sources:
            for m in re.finditer(r"__global__\s+void\s+(\w+)\s*\([^)]*\)\s*\{", src.text):
                body = _body(src.text, m.end())
                # Rationale: a kernel that derives an index from the thread id and never compares
                # anything cannot guard against the last block's extra threads (memcheck confirms).
                if re.search(r"threadIdx|blockIdx", body) and not re.search(r"<|>|\breturn\b|min\(", body):
                    line = src.line + src.text[:m.start()].count("\n")
                    out.append(StaticFinding("no_bounds_guard", f"kernel {m.group(1)} computes an index from "
                                             "threadIdx/blockIdx but compares nothing: no bounds guard for the "
                                             "threads past the end of the data", line=line))
        return out


def _body(text: str, start: int) -> str:
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start:i]

