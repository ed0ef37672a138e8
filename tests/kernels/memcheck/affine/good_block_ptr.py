"""Correct: 2-D tiles through block pointers with boundary_check on both axes. False-positive test
for block pointers.
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tile_affine_kernel(x_ptr, y_ptr, M, N, sm, sn, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    xb = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(sm, sn), offsets=(pm * BM, pn * BN),
                           block_shape=(BM, BN), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(sm, sn), offsets=(pm * BM, pn * BN),
                           block_shape=(BM, BN), order=(1, 0))
    x = tl.load(xb, boundary_check=(0, 1), padding_option="zero")
    tl.store(yb, x * 2.0 + 1.0, boundary_check=(0, 1))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        m, n = x.shape
        tile_affine_kernel[(triton.cdiv(m, 4), triton.cdiv(n, 64))](x, y, m, n, x.stride(0), x.stride(1),
                                                                     BM=4, BN=64)
        return y
