"""NumPy computes the softmax on the host and a Triton kernel copies its result into the output: a kernel is
launched, the output derives from it, and no torch operator does the work, so the operator trace and the
share check see nothing. The withheld run answers the host copy of the input with poison, and the output
moves (before it did not, and this kernel was accepted).
Expect: builds=pass, correctness=pass, integrity=fail
Defect: hidden_library_work
"""

import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask), mask=mask)


def _softmax_on_host(x: torch.Tensor) -> torch.Tensor:
    a = np.asarray(x.detach().cpu(), dtype=np.float64)
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return torch.from_numpy((e / e.sum(axis=-1, keepdims=True)).astype(np.float32))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = _softmax_on_host(x).to(x.device).contiguous()
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](out, y, y.numel(), BLOCK=1024)
        return out.reshape(x.shape)
