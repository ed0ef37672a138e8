"""Correct: module-level aliases of Triton builtins (``triton_cast = tl.cast``, ``from triton.language import
sigmoid``), as generated and ported code often has; the compiler resolves them to the builtins, the
interpreter did not ("Did you forget to add @triton.jit ?"). The interpreter's limit is not the kernel's
failure.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language import sigmoid

triton_cast = tl.cast


@triton.jit
def silu_gate_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr, GATE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = triton_cast(tl.load(x_ptr + offs, mask=mask, other=0.0), tl.float32)
    y = x * sigmoid(x) * GATE
    tl.store(y_ptr + offs, triton_cast(y, y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, gate_multiplier: float):
        super().__init__()
        self.gate_multiplier = gate_multiplier

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        silu_gate_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024, GATE=self.gate_multiplier)
        return y
