"""Allocates a workspace sized as if the input were a square matrix of its length squared
(1000^4 floats): it runs out of memory before the kernel starts.

Expect: builds=fail
Diagnosis: out_of_memory
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.numel()
        workspace = torch.empty(n * n * n * n, dtype=torch.float32)
        y = workspace[:n]
        scale_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
        return y.clone()
