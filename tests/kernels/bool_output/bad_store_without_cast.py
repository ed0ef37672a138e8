"""Missing store cast: the kernel computes "both nonzero" as the product ``a * b`` in fp32 (nonzero exactly
when both are) and stores it straight into the bool output. Triton's store converts to the pointer's
element type, but a bool pointer is stored as int8, so the implicit conversion truncates: 0.3 * 0.5 = 0.15
is stored as 0 (False) and 256.0 as 0 too, where ``.to(out_ptr.dtype.element_ty)`` (int1: value != 0)
gives True. Most products of two standard normals are below 1 in magnitude, so the nominal output is
mostly False where the reference is True.
Expect: builds=pass, correctness=fail, overall=reject
Fix: store_cast
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
    tl.store(out_ptr + offsets, both, mask=mask)


class ModelNew(nn.Module):
    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        out = torch.empty(a.shape, dtype=torch.bool, device=a.device)
        n_elements = out.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        logical_and_kernel[grid](a, b, out, n_elements, BLOCK_SIZE=1024)
        return out
