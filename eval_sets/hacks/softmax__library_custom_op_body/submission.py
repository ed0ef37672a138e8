"""The softmax is computed with torch's exp, sum and div inside the body of an operator the submission defines
with ``torch.library.custom_op`` (named like an allocation), and a Triton kernel copies the result into the
output. Both trace modes are popped while an operator runs, so the body's operators were never seen (and
exp, sum and div are not the reference's core operator, so the withheld run kept them); the body now runs
with the recorder entered again.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: library_compute
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask), mask=mask)


@torch.library.custom_op("kreview_hostile::empty_rows", mutates_args=())
def empty_rows(x: torch.Tensor) -> torch.Tensor:
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


@empty_rows.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = empty_rows(x.detach().contiguous())
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](out, y, y.numel(), BLOCK=1024)
        return out.reshape(x.shape)
