"""A faithful port: the same blocks and fp32 accumulation as the original, written with a
precomputed block count and a pointer per row; its outputs are the original's bit for bit.
Expect: builds=pass, correctness=pass, generality=pass
Port: preserves
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _row_sum(src, dst, row_stride, cols, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row_ptr = src + pid * row_stride
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for b in range(0, n_blocks):
        idx = b * BLOCK + tl.arange(0, BLOCK)
        vals = tl.load(row_ptr + idx, mask=idx < cols, other=0.0)
        total += vals.to(tl.float32)
    tl.store(dst + pid, tl.sum(total, axis=0).to(dst.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty(flat.shape[0], dtype=x.dtype, device=x.device)
        cols = flat.shape[1]
        _row_sum[(flat.shape[0],)](flat, out, flat.stride(0), cols, triton.cdiv(cols, 256), BLOCK=256)
        return out.reshape(x.shape[:-1])
