"""The product computed by torch.einsum on a helper thread (reached through importlib, so no import names
threading), bias and ReLU by a Triton kernel: einsum runs as bmm, an operator the reference never calls
(its core is addmm; the same matmul family), on a thread the operator trace now follows.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: library_compute
"""

import importlib

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(y_ptr, b_ptr, M, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M * N
    y = tl.load(y_ptr + offs, mask=mask) + tl.load(b_ptr + offs % N, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(y, 0.0), mask=mask)


def _on_helper(fn):
    box = []
    worker = getattr(importlib.import_module("thr" + "eading"), "Th" + "read")(target=lambda: box.append(fn()))
    worker.start()
    worker.join()
    return box[0]


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)  # same initialisation as the reference

    def forward(self, x):
        w = self.linear.weight
        y = _on_helper(lambda: torch.einsum("mk,nk->mn", x, w)).contiguous()
        M, N = y.shape
        bias_relu_kernel[(triton.cdiv(M * N, 1024),)](y, self.linear.bias, M, N, BLOCK=1024)
        return y
