"""Correct: the launch sits inside ``with torch.cuda.device(x.device):`` (as in flash-attention's and
Liger-Kernel's wrappers, for multi-GPU callers); on the one virtual device that selection is a no-op,
where torch's own refuses the CPU device the interpreter's tensors live on.
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
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x * tl.sigmoid(x) * gate_multiplier, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, gate_multiplier: float):
        super().__init__()
        self.gate_multiplier = gate_multiplier

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        with torch.cuda.device(x.device):
            silu_gate_kernel[(triton.cdiv(n, 1024),)](x, y, n, self.gate_multiplier, BLOCK_SIZE=1024)
        return y
