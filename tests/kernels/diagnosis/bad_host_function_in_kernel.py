"""Calls a plain Python helper (not @triton.jit) inside the kernel. The CPU interpreter runs it as
plain Python, so the submission runs and is even correct there, but Triton's compiler rejects a call
to a non-jit function: it does not compile for any GPU target (the resources criterion fails).

Expect: builds=pass, resources=fail
Diagnosis: compile_error
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


def double(v):
    return v * 2.0


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, double(x), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        scale_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
