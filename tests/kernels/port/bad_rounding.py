"""A port that rounds differently on its multi-block path: each block's sum is added to a running
total kept in bfloat16 (8 bits) for rows longer than one block (256), where the original accumulates
in fp32 and rounds once to fp16. Rows of one block take the fp32 path and match the original bit for
bit. Against the task's reference the result stays within the error budget (a few fp16 ULPs), so
only the comparison with the original tells the port lost precision the original had.
Expect: builds=pass, correctness=fail, generality=fail
Port: diverges
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr, ACC: tl.constexpr):
    row = tl.program_id(0)
    total = tl.sum(tl.zeros([BLOCK], dtype=ACC), axis=0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        part = tl.sum(tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32), axis=0)
        total = (total.to(tl.float32) + part).to(ACC)
    tl.store(y_ptr + row, total.to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty(x2.shape[0], dtype=x.dtype, device=x.device)
        acc = tl.float32 if x2.shape[1] <= 256 else tl.bfloat16
        rowsum_kernel[(x2.shape[0],)](x2, y, x2.stride(0), x2.shape[1], BLOCK=256, ACC=acc)
        return y.reshape(x.shape[:-1])
