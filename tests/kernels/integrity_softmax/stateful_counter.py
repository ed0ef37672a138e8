"""Softmax that goes wrong after its 300th call: a module-level counter switches, from then on, to
a mask one column short (the last column of every row is left unwritten). Every probe that calls
it a few times sees a correct kernel; the many-calls probe (in a fresh child) sees call 301 differ.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: stateful_output
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

_CALLS = 0


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, n_valid, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=offs < n_valid)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        global _CALLS
        _CALLS += 1
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.zeros_like(x2)
        n = x2.shape[1]
        softmax_kernel[(x2.shape[0],)](out, x2, x2.stride(0), out.stride(0), n, n if _CALLS <= 300 else n - 1,
                                       BLOCK=triton.next_power_of_2(n))
        return out.reshape(x.shape)
