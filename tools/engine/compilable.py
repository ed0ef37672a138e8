"""What a submission holds for a static compile, the one rule for "is there anything to compile here":
Triton kernels (a framework whose backend says its kernels are compiled by the Triton compiler,
``Backend.triton_compiled``, among the frameworks the submission uses) and CUDA C sources (found in its
files, tools/engine/cuda_sources.py). The resources tool compiles them; the compiled_code tool reads
what was compiled; both apply exactly where this finds something.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.core.submission import Submission
from tools.engine.cuda_sources import CudaSource, find_cuda_sources
from tools.engine.registry import backend_for


@dataclass(frozen=True)
class Compilable:
    triton: bool
    """A framework it uses compiles its kernels with the Triton compiler."""
    cuda_sources: tuple[CudaSource, ...]

    @property
    def anything(self) -> bool:
        return self.triton or bool(self.cuda_sources)


def triton_kernels(sub: Submission) -> bool:
    return any(backend_for(f).triton_compiled for f in (sub.framework, *sub.frameworks_seen))


def compilable(sub: Submission) -> Compilable:
    return Compilable(triton=triton_kernels(sub),
                      cuda_sources=tuple(find_cuda_sources(sub.root_path, sub.kernel_files)))


def nothing_to_compile(sub: Submission) -> str | None:
    """Why there is nothing to compile statically in ``sub``, or None when there is."""
    if sub.syntax_error is not None:
        return "the submission does not parse"
    if triton_kernels(sub) or find_cuda_sources(sub.root_path, sub.kernel_files):
        return None
    return f"no Triton or CUDA C kernel to compile (framework: {sub.framework})"
