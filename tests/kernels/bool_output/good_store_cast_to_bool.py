"""Correct: the same product, cast to the output's element type on the store (int1 for a bool output:
value != 0), so every nonzero product is True. False-positive test for the fixer (no patch).
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def logical_and_kernel(a_ptr, b_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    both = a * b
    tl.store(out_ptr + offsets, both.to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        out = torch.empty(a.shape, dtype=torch.bool, device=a.device)
        n_elements = out.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        logical_and_kernel[grid](a, b, out, n_elements, BLOCK_SIZE=1024)
        return out
