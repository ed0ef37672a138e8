"""A port that drops the tail: it walks only the full blocks of 256 (the original masks the last,
partial one). Nominal rows (1024) are whole blocks, so nominal inputs pass; any other row length
loses its last dim % 256 elements.
Expect: builds=pass, correctness=fail, generality=fail
Port: diverges
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, y_ptr, stride, n_full, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_full, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + offs).to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty(x2.shape[0], dtype=x.dtype, device=x.device)
        n_full = x2.shape[1] // 256 * 256
        rowsum_kernel[(x2.shape[0],)](x2, y, x2.stride(0), n_full, BLOCK=256)
        return y.reshape(x.shape[:-1])
