"""Failure classes a kernel engineer names, in one table: a stable code, the compiler/runtime messages
that identify it, what it means and the usual fix.

Order matters: the first class whose pattern matches wins, so specific messages (shared memory over
the limit) come before general ones (compile error). ``classify`` keeps the message it matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict


@dataclass(frozen=True)
class FailureClass:
    code: str
    title: str
    patterns: tuple[str, ...]
    explanation: str
    fix: str
    environment: bool = False  # the reviewer's setup, not the kernel


TABLE: tuple[FailureClass, ...] = (
    FailureClass(
        "toolchain_mismatch", "driver/toolchain mismatch",
        (r"CUDA driver version is insufficient", r"PTX was compiled with an unsupported toolchain",
         r"no kernel image is available for execution", r"Unsupported gpu architecture",
         r"Unsupported \.version \d+\.\d+; current version is",
         r"undefined symbol: \S*(?:cuda|c10|torch|at::)", r"version `GLIBC\w*_[\d.]+' not found",
         r"compiled with (?:a )?different (?:CUDA|PyTorch) version", r"CUDA_HOME environment variable is not set"),
        "the binary, the compiler and the driver/runtime disagree (built for another GPU generation, a newer "
        "PTX ISA than the driver or the assembler (ptxas) accepts, or an extension built against another PyTorch/CUDA)",
        "rebuild for the target architecture with the toolkit the driver supports; pin the extension to the "
        "installed PyTorch", environment=True),
    FailureClass(
        "unsupported_on_target", "feature not available on this target",
        (r"type fp8\w* not supported in this architecture", r"not supported (?:on|in) (?:this|the) (?:arch|target|GPU)",
         r"requires (?:sm_|compute capability )\d+", r"wgmma\S* (?:is )?not supported", r"\bTMA\b.*not supported"),
        "the kernel uses an instruction or data type this GPU generation lacks (FP8 before sm_89, wgmma/TMA "
        "before sm_90)",
        "guard the feature by compute capability and give older targets a fallback path, or declare the "
        "targets the kernel is meant for ([target] arch in kreview.toml)"),
    FailureClass(
        "shared_memory_over_limit", "shared memory over the per-block limit",
        (r"out of resource: shared memory", r"uses too much shared data", r"smem_over_limit",
         r"shared memory.*(?:exceeds|over) (?:the )?(?:limit|maximum)"),
        "one configuration asks for more shared memory per block than the target allows (about 227 KB on "
        "sm_90, 163 KB on sm_80, 99 KB on sm_86/89): tiles times pipeline stages times element size",
        "shrink BLOCK sizes or num_stages for that target (prune the autotune configs by "
        "triton.runtime.driver.active.utils.get_device_properties()['max_shared_mem'])"),
    FailureClass(
        "registers_over_limit", "too many resources for the launch",
        (r"too many resources requested for launch", r"out of resource: (?:registers|threads)",
         r"uses too much (?:register|local) (?:data|memory)"),
        "registers per thread times threads per block exceed the register file (65536 per SM), or the block "
        "asks for more threads than allowed",
        "fewer warps or smaller tiles, __launch_bounds__ for CUDA C, or a larger maxnreg only if spills are "
        "acceptable"),
    FailureClass(
        "grid_limit", "launch grid over the hardware limit",
        (r"invalid configuration argument", r"grid\w*.*(?:exceed|too large|must be (?:<|less))",
         r"(?:gridDim|grid dim)\w*.*65535", r"\b65535\b.*grid"),
        "a launch dimension exceeds the hardware limit: grid y and z are limited to 65535 blocks (x to 2^31-1), "
        "blocks to 1024 threads",
        "put the large extent on grid axis 0, or loop inside the kernel over a fixed number of programs "
        "(persistent kernel)"),
    FailureClass(
        "block_size", "block/tile size not allowed",
        (r"arange's range must be a power of 2", r"(?:numel|number of elements) \(\d+\) exceeds triton maximum",
         r"num_warps must be a power of 2", r"block size.*(?:must|should) be", r"shape .* must be power of 2",
         r"Block shape must be a power of 2", r"maximum tensor numel"),
        "a tile shape the compiler refuses: Triton needs power-of-two block dimensions and at most 2^20 "
        "elements per tensor",
        "round the block up with triton.next_power_of_2 and mask the tail; tile the problem instead of "
        "loading it whole"),
    FailureClass(
        "int32_overflow", "32-bit index overflow",
        (r"int32.*overflow", r"overflow.*int32", r"out of range for (?:an )?int32", r"2147483647",
         r"integer overflow", r"value (?:is )?too large for int32"),
        "an index or offset computed in 32 bits passes 2^31 on large inputs (pid * BLOCK * stride, row * N)",
        "cast to 64 bits before multiplying (pid.to(tl.int64), or int64_t in CUDA C) for tensors over 2^31 "
        "elements or bytes"),
    FailureClass(
        "out_of_memory", "out of memory",
        (r"CUDA out of memory", r"OutOfMemoryError", r"\bMemoryError\b", r"can't allocate memory",
         r"out_of_memory", r"ran out of memory"),
        "the submission allocates more than the device (or the sandbox) holds: often a full-size temporary, "
        "a materialised broadcast or a per-call allocation that is never freed",
        "compute in tiles and reuse workspace buffers; avoid materialising broadcasts"),
    FailureClass(
        "illegal_memory_access", "illegal memory access",
        (r"illegal memory access", r"misaligned address", r"Segmentation fault", r"SIGSEGV",
         r"out of bounds", r"index \d+ is out of bounds", r"unspecified launch failure"),
        "a load or store reached memory outside its tensor: a missing or wrong mask on the tail, a stride "
        "ignored, or an index overflow",
        "mask every load/store against the true extent (offs < n), use the tensor's strides, run the "
        "memory checker on the failing case"),
    FailureClass(
        "shape_mismatch", "shape mismatch",
        (r"size of tensor a \(\d+\) must match the size of tensor b", r"shapes cannot be multiplied",
         r"[Ss]hape mismatch", r"[Ii]ncompatible (?:shapes|dimensions)", r"expected .*shape",
         r"(?:must|should) have (?:the )?same shape", r"output with shape \[.*\] doesn't match",
         r"is invalid for input of size"),
        "the kernel's output or an intermediate has a different shape from what the caller or the "
        "reference expects: a hard-coded size, a transposed operand, a dropped batch dimension",
        "derive every size from the inputs' .shape and check the output against the reference's shape"),
    FailureClass(
        "stride_mismatch", "stride/layout assumption broken",
        (r"view size is not compatible with input tensor's size and stride", r"must be contiguous",
         r"non-contiguous", r"[Ss]tride.*(?:mismatch|expected|unsupported)", r"is not contiguous"),
        "the code assumes a contiguous (or specific) memory layout that the input does not have",
        "pass the tensor's strides to the kernel, or call .contiguous() where the layout is an assumption"),
    FailureClass(
        "dtype_mismatch", "dtype mismatch",
        (r"expected scalar type \w+ but found \w+", r"not implemented for '\w+'", r"dtype mismatch",
         r"expected .* dtype", r"[Ii]ncompatible .*dtype", r"unsupported dtype"),
        "an operation receives a dtype it does not accept, or operands of two dtypes",
        "cast explicitly where precisions meet, and say which dtypes the kernel supports"),
    FailureClass(
        "compile_error", "compile error",
        (r"CompilationError", r"\berror: ", r"ptxas (?:fatal|error)", r"nvcc (?:fatal|error)",
         r"triton\.compiler\.errors", r"MLIR(?: pass)? (?:failed|error)", r"PassManager::run failed"),
        "the kernel does not compile: the compiler's message names the construct it rejected",
        "fix the construct at the quoted line; the compiler's message is kept verbatim"),
    FailureClass(
        "hang", "hang",
        (r"did not finish within", r"\bhang\b", r"timed out"),
        "the call never returned: an endless loop (a loop bound that never moves, a spin on a flag) or a "
        "grid far larger than intended",
        "check loop bounds and the grid size on the failing case"),
    FailureClass(
        "import_error", "import error",
        (r"ModuleNotFoundError", r"ImportError", r"No module named"),
        "the submission imports something that is not installed or does not exist",
        "depend only on the declared frameworks; ship helper modules inside the submission"),
)

_COMPILED = tuple((c, tuple(re.compile(p) for p in c.patterns)) for c in TABLE)


class Diagnosis(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str
    title: str
    explanation: str
    fix: str
    environment: bool
    matched: str
    message: str


def classify(text: str) -> Diagnosis | None:
    """The first failure class whose pattern occurs in ``text`` (an error message with its traceback)."""
    for cls, patterns in _COMPILED:
        for p in patterns:
            m = p.search(text)
            if m is not None:
                return Diagnosis(code=cls.code, title=cls.title, explanation=cls.explanation, fix=cls.fix,
                                 environment=cls.environment, matched=m.group(0), message=_message_around(text, m))
    return None


def _message_around(text: str, m: re.Match[str]) -> str:
    start = text.rfind("\n", 0, max(0, m.start() - 300)) + 1
    end = text.find("\n", m.end() + 300)
    return text[start:end if end != -1 else len(text)].strip()[:1200]


def codes() -> list[str]:
    return [c.code for c in TABLE]
