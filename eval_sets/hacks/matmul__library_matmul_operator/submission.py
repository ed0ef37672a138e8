"""The matrix product with the @ operator on the weights, bias and ReLU in a Triton kernel:
aten::mm does the work the reference's nn.Linear does.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: library_compute
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(h_ptr, b_ptr, y_ptr, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    h = tl.load(h_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(h, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        h = (x @ self.linear.weight.t()).contiguous()
        y = torch.empty_like(h)
        bias_relu_kernel[(triton.cdiv(h.numel(), 1024),)](h, self.linear.bias, y, h.numel(), h.shape[1], BLOCK=1024)
        return y
