"""Fused softmax written exactly in the style of the public Triton tutorial: the device and its
properties come from Triton's driver (DEVICE line), the kernel is warmed up to read its register and
shared-memory use, and the number of persistent programs is sized from them; each program strides
over rows. Kept as written, it reviews on a CPU-only machine through the virtual device (an H100 by
default; see docs/bring-your-own-kernel.md). Expected verdict: accept for every criterion that can
be checked there (performance stays unverified without a GPU).
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
properties = triton.runtime.driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
NUM_REGS = properties["max_num_regs"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]
target = triton.runtime.driver.active.get_current_target()


@triton.jit
def softmax_rows(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                 BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    first = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(first, n_rows, step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK_SIZE)
        keep = cols < n_cols
        vals = tl.load(in_ptr + row * in_stride + cols, mask=keep, other=-float("inf"))
        shifted = vals - tl.max(vals, axis=0)
        e = tl.exp(shifted)
        total = tl.sum(e, axis=0)
        tl.store(out_ptr + row * out_stride + cols, e / total, mask=keep)


def softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if SIZE_SMEM > 200000 else 2
    y = torch.empty_like(x)
    kernel = softmax_rows.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                 num_stages=num_stages, num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    n_regs = kernel.n_regs
    size_smem = kernel.metadata.shared
    occupancy = NUM_REGS // (n_regs * WARP_SIZE * num_warps)
    if size_smem > 0:
        occupancy = min(occupancy, SIZE_SMEM // size_smem)
    num_programs = min(NUM_SM * occupancy, n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.device == DEVICE
        # the kernel reads rows with a column stride of 1, so the rows are made contiguous first
        return softmax(x.reshape(-1, x.shape[-1]).contiguous()).reshape(x.shape)
