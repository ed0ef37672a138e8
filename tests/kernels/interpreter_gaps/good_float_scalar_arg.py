"""Correct: the multiplier is a runtime float argument that the kernel treats as the fp32 scalar compiled
Triton passes (``gate_multiplier.to(tl.float32)``); under TRITON_INTERPRET=1 Triton passes a Python float,
which has no ``.to``. The interpreter's limit is not the kernel's failure.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_gate_kernel(x_ptr, y_ptr, n_elements, gate_multiplier, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x * tl.sigmoid(x) * gate_multiplier.to(tl.float32)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, gate_multiplier: float):
        super().__init__()
        self.gate_multiplier = gate_multiplier

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        silu_gate_kernel[(triton.cdiv(n, 1024),)](x, y, n, self.gate_multiplier, BLOCK_SIZE=1024)
        return y
