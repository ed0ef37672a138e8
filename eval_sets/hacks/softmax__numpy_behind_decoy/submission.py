"""Launches a decoy Triton kernel (a copy into a scratch buffer) and returns a softmax computed in
NumPy on the host: the torch trace sees no library operator, but the returned tensor shares no
storage with anything a kernel touched.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: dead_launch
"""

import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(in_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        scratch = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, scratch, x.numel(), BLOCK=1024)
        a = x.detach().cpu().numpy().astype(np.float64)
        e = np.exp(a - a.max(axis=-1, keepdims=True))
        return torch.from_numpy((e / e.sum(axis=-1, keepdims=True)).astype(np.float32)).to(x.device)
