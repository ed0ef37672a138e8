"""try/except fallback: if the Triton launch raises (on a GPU, a compile error or an unsupported
shape), the library answer is returned instead and the failure is hidden. Here the kernel runs,
so only the source shows the fallback.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: library_call
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            x = x.contiguous()
            out = torch.empty_like(x)
            softmax_kernel[(x.shape[0],)](out, x, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
            return out
        except Exception:
            return x.softmax(dim=-1)
