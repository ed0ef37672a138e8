"""An autotuned QK-norm whose first config (BLOCK_N=128) the autotuner prunes (it fails the kernel's own
``tl.static_assert(BLOCK_N <= HEAD_DIM)``), and whose BLOCK_N=32 config, which survives and may win on a
GPU, stores only the first block of each row (the store loop stops after one block). A pruned config is
not a defect; a surviving wrong one is.
Expect: builds=pass, correctness=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_N": 128}, num_warps=4),
                          triton.Config({"BLOCK_N": 64}, num_warps=4),
                          triton.Config({"BLOCK_N": 32}, num_warps=2)],
                 key=["HEAD_DIM"])
@triton.jit
def qk_norm_kernel(x_ptr, y_ptr, stride, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in tl.static_range(0, HEAD_DIM, BLOCK_N):
        offs = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row * stride + offs)
        acc += x * x
    inv = 1.0 / tl.sqrt(tl.sum(acc, axis=0))
    offs = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * stride + offs)
    tl.store(y_ptr + row * stride + offs, x * inv)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.zeros_like(x)
        qk_norm_kernel[(x.shape[0],)](x, y, x.stride(0), HEAD_DIM=x.shape[1])
        return y
