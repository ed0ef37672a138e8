"""Correct on a GPU: the sigmoid is one PTX instruction through ``tl.inline_asm_elementwise`` (tanh.approx, as
in fast-activation kernels); the Triton interpreter cannot run inline PTX. That is the interpreter's limit,
named as such: unverified, never a build failure.
Expect: builds=unverified, overall=needs_human
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
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    t = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=r,r", [x * 0.5], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, x * (0.5 + 0.5 * t) * gate_multiplier, mask=mask)


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
