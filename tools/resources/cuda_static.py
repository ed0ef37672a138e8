"""Compile a submission's CUDA C for real targets with nvcc (``-cubin -Xptxas -v``), no GPU needed.

Per source and architecture: first the device-only unit (cuda_unit.py, well under a second), then,
if that does not apply or does not compile, the full source as load_inline would build it, with
PyTorch's headers (tens of seconds). A failure whose errors point into PyTorch's or the toolkit's
headers, a missing header or a timeout is the environment's, not the submission's: unverified.
"""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tools.engine.cuda_sources import CudaSource, translation_unit
import tools.engine.compilers.toolchain as toolchain
from tools.resources.cuda_unit import device_only_unit
from tools.engine.compilers.ptxas import PtxasReport, parse_cuobjdump_resources, parse_ptxas

# torch.utils.cpp_extension: COMMON_NVCC_FLAGS and the C++ standard of its JIT builds (torch 2.13)
TORCH_NVCC_FLAGS = ("-std=c++20", "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr")
# Rationale: only flags that change device code generation are passed on; anything else (host
# compiler options, output paths, -ccbin) is the submission's build business, not codegen.
_CODEGEN_FLAG = re.compile(r"^(?:-O\d|--use_fast_math|-use_fast_math|--ftz=\w+|--prec-div=\w+|--prec-sqrt=\w+|"
                           r"--fmad=\w+|-maxrregcount=\d+|--maxrregcount=\d+|-lineinfo|--extra-device-vectorization|"
                           r"-D\w+(?:=[\w.]+)?|-U\w+|--expt-\w+(?:-\w+)*|-Xptxas=?[-\w=,]+|--ptxas-options=[-\w=,]+|"
                           r"-Xptxas|-std=c\+\+\d+)$")


class CudaCompile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str
    file: str
    line: int
    target: str
    mode: str = ""
    note: str = ""
    ok: bool = False
    error: str | None = None
    error_kind: str | None = None  # "compile" | "environment" | "setup" | "timeout"
    report: PtxasReport = Field(default_factory=PtxasReport)
    resources: dict[str, dict[str, int]] = Field(default_factory=dict)
    command: str = ""
    artifacts: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    attempts: list[str] = Field(default_factory=list)


def codegen_flags(flags: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    take_next = False
    for f in flags:
        if take_next:
            out.append(f)
            take_next = False
        elif _CODEGEN_FLAG.match(f):
            out.append(f)
            take_next = f == "-Xptxas"
    return [f for f in out if not f.startswith("-std=")]


def _torch_includes() -> list[str] | None:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    inc = Path(next(iter(spec.submodule_search_locations))) / "include"
    if not (inc / "torch" / "extension.h").exists():
        return None
    py = sysconfig.get_paths().get("include")
    dirs = [str(inc), str(inc / "torch" / "csrc" / "api" / "include")]
    if py and Path(py, "Python.h").exists():
        dirs.append(py)
    # Rationale: the same stand-in for the header a CPU-only torch lacks (cuda_cmake_macros.h) as
    # the lowering check uses, searched last: lowering and resources compile the same source alike.
    dirs.append(str(Path(__file__).resolve().parents[1] / "engine" / "backends" / "cuda_include"))
    return dirs


def _environment_error(stderr: str, unit_name: str) -> str | None:
    """Why a failed compile is the environment's fault, or None if the errors are in the submission."""
    missing = re.search(r"fatal error: ([\w./+-]+): No such file or directory", stderr)
    if missing is not None:
        return f"header {missing.group(1)} is not available here (it ships with a full CUDA toolkit or a CUDA build of PyTorch)"
    located = re.findall(r"^([^\s:][^:\n]*)\((\d+)\): error", stderr, flags=re.MULTILINE)
    located += re.findall(r"^([^\s:][^:\n]*):(\d+):\d+: error", stderr, flags=re.MULTILINE)
    if located and not any(Path(f).name == unit_name for f, _ in located):
        return f"the errors are inside headers ({Path(located[0][0]).name}), not in the submission's source"
    return None


def compile_source(src: CudaSource, arch: str, out_dir: Path, rel_dir: Path, *, timeout: float,
                   full_timeout: float) -> CudaCompile:
    """Compile one source for one architecture (``sm_90``); never raises for the source's faults."""
    base = CudaCompile(source=src.label, file=src.file, line=src.line, target=arch)
    nvcc = toolchain.find("nvcc")
    if nvcc is None:
        return base.model_copy(update={"error": "nvcc is not installed here (no CUDA toolkit on PATH, CUDA_HOME or "
                                                "/usr/local/cuda)", "error_kind": "setup"})
    out_dir.mkdir(parents=True, exist_ok=True)
    full_text = translation_unit(src)
    stem = re.sub(r"\W+", "_", src.name or Path(src.file).stem)
    flags = [*TORCH_NVCC_FLAGS, *codegen_flags(src.extra_cuda_cflags)]
    attempts: list[str] = []
    unit, note = device_only_unit(full_text)
    if unit is not None:
        res = _nvcc(nvcc, unit, f"{stem}.device.cu", arch, flags, out_dir, rel_dir, timeout, base)
        if res.ok:
            return res.model_copy(update={"mode": "device-only", "note": note, "attempts": attempts})
        attempts.append(f"device-only unit did not compile ({(res.error or '')[:300]}); retried with PyTorch's headers")
    else:
        attempts.append(f"device-only unit not applicable: {note}")
    includes = _torch_includes()
    if includes is None and src.origin == "load_inline":
        return base.model_copy(update={"error": "PyTorch's C++ headers (torch/extension.h) are not installed, so the "
                                                "full load_inline source cannot be compiled", "error_kind": "setup",
                                       "attempts": attempts})
    full_flags = [*flags, *(f"-I{d}" for d in includes or []), "-DTORCH_API_INCLUDE_EXTENSION_H",
                  f"-DTORCH_EXTENSION_NAME={stem}"]
    res = _nvcc(nvcc, full_text, f"{stem}.cu", arch, full_flags, out_dir, rel_dir, full_timeout, base)
    return res.model_copy(update={"mode": "full (PyTorch headers)", "attempts": attempts,
                                  "note": "compiled as load_inline would, with PyTorch's headers"})


def _nvcc(nvcc: str, text: str, name: str, arch: str, flags: list[str], out_dir: Path, rel_dir: Path,
          timeout: float, base: CudaCompile) -> CudaCompile:
    (out_dir / name).write_text(text)
    cubin = Path(name).with_suffix(f".{arch}.cubin").name
    cmd = [nvcc, f"-arch={arch}", "-cubin", "-Xptxas", "-v", *flags, name, "-o", cubin]
    run = toolchain.run_tool(cmd, cwd=out_dir, timeout=timeout)
    log = run.stderr + run.stdout
    log_name = Path(name).with_suffix(f".{arch}.nvcc.log").name
    (out_dir / log_name).write_text(log)
    artifacts = [str(rel_dir / name), str(rel_dir / log_name)]
    report = parse_ptxas(log)
    common = {"command": run.command().replace(str(out_dir) + "/", ""), "report": report, "seconds": run.seconds,
              "artifacts": artifacts}
    if run.timed_out:
        return base.model_copy(update={**common, "error": f"nvcc did not finish within {timeout:g}s",
                                       "error_kind": "timeout"})
    if report.limit_errors:
        # ptxas refused an allocation: a real finding about the kernel, reported with its figures
        return base.model_copy(update={**common, "ok": True})
    if not run.ok:
        env = _environment_error(log, name)
        return base.model_copy(update={**common, "error": (env or "nvcc failed") + ": " + log.strip()[-1500:],
                                       "error_kind": "environment" if env else "compile"})
    artifacts.append(str(rel_dir / cubin))
    resources: dict[str, dict[str, int]] = {}
    cuobjdump = toolchain.find("cuobjdump")
    if cuobjdump is not None:
        sass = toolchain.run_tool([cuobjdump, "-sass", cubin], cwd=out_dir, timeout=timeout)
        if sass.ok:
            sass_name = Path(cubin).with_suffix(".sass").name
            (out_dir / sass_name).write_text(sass.stdout)
            artifacts.append(str(rel_dir / sass_name))
        usage = toolchain.run_tool([cuobjdump, "--dump-resource-usage", cubin], cwd=out_dir, timeout=timeout)
        if usage.ok:
            resources = parse_cuobjdump_resources(usage.stdout)
    return base.model_copy(update={**common, "ok": True, "resources": resources, "artifacts": artifacts})


def demangle(name: str) -> str:
    """The unqualified function name of an Itanium-mangled symbol (``_Z12softmax_rowsPKfPfi`` ->
    ``softmax_rows``, ``_ZN2ns6kernelEPf`` -> ``kernel``); other names are returned unchanged."""
    if name.startswith("_ZN"):
        parts, i, body = [], 3, name
        while i < len(body) and body[i].isdigit():
            j = i
            while j < len(body) and body[j].isdigit():
                j += 1
            n = int(body[i:j])
            parts.append(body[j:j + n])
            i = j + n
        return parts[-1] if parts else name
    m = re.match(r"_Z(\d+)", name)
    if m is not None:
        n = int(m.group(1))
        return name[m.end():m.end() + n]
    return name
