"""Copies one element of the input to NumPy (within the withheld run's allowance), then reads the whole buffer
through that zero-copy array with ``as_strided`` and computes the softmax there; a Triton kernel copies the
result into the output. A copy is counted by the memory it hands over (the storage from the view's first
element on), and the poisoned answer keeps that memory poisoned, so the output moves.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: hidden_library_work
"""

import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl
from numpy.lib.stride_tricks import as_strided


@triton.jit
def copy_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        first = x2.reshape(-1)[:1].numpy()
        a = as_strided(first, shape=x2.shape, strides=(x2.stride(0) * 4, 4)).astype(np.float64)
        e = np.exp(a - a.max(axis=-1, keepdims=True))
        y = torch.from_numpy((e / e.sum(axis=-1, keepdims=True)).astype(np.float32))
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](out, y, y.numel(), BLOCK=1024)
        return out.reshape(x.shape)
