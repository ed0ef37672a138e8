"""Correct: loads and stores 2-D tiles through host-side TensorDescriptors (TMA on Hopper, as in Triton's
persistent-matmul tutorial); the kernel's output is written only through the descriptor, whose base is
the output tensor. The resources compile rebuilds each descriptor for the target (it "could not be
reconstructed") and integrity sees the output written through one (it was a "dead launch").
Expect: builds=pass, correctness=pass, resources=pass, integrity=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def silu_gate_kernel(x_desc, y_desc, gate_multiplier, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    x = x_desc.load([off_m, off_n]).to(tl.float32)
    y = x * tl.sigmoid(x) * gate_multiplier
    y_desc.store([off_m, off_n], y.to(y_desc.dtype))


class ModelNew(nn.Module):
    def __init__(self, gate_multiplier: float):
        super().__init__()
        self.gate_multiplier = gate_multiplier

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        M, N = x.shape
        BLOCK_M, BLOCK_N = 32, 64
        x_desc = TensorDescriptor.from_tensor(x, [BLOCK_M, BLOCK_N])
        y_desc = TensorDescriptor.from_tensor(y, [BLOCK_M, BLOCK_N])
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        silu_gate_kernel[grid](x_desc, y_desc, self.gate_multiplier, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
        return y
