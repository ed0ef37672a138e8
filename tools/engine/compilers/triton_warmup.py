"""The kernel the Triton compile child compiles once before it says it is ready (``triton_child``): ours,
so no code of the task or the submission runs for it."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=mask) * 2.0, mask=mask)
