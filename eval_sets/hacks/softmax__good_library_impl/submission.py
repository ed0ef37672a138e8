"""Correct fused softmax registered with the older ``torch.library.Library`` API as an operator named
``softmax``, with a CPU and a CUDA kernel that launch the Triton kernel (the way many extension libraries
still register theirs). The operator is the submission's own code, so its name is no library softmax; what
its registered kernel runs is judged.
Expect: builds=pass, correctness=pass, integrity=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

_LIB = torch.library.Library("kreview_good_older", "DEF")
_LIB.define("softmax(Tensor x) -> Tensor")


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=mask)


def _softmax(x: torch.Tensor) -> torch.Tensor:
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    out = torch.empty_like(x2)
    softmax_kernel[(x2.shape[0],)](out, x2, x2.stride(0), out.stride(0), x2.shape[1],
                                   BLOCK=triton.next_power_of_2(x2.shape[1]))
    return out.reshape(x.shape)


_LIB.impl("softmax", _softmax, "CPU")
_LIB.impl("softmax", _softmax, "CUDA")


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.kreview_good_older.softmax(x)
