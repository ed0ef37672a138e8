import torch
import triton
import triton.language as tl
from task import input_t, output_t


@triton.jit
def l2norm_rows_kernel(x_ptr, stride_row, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    ptrs = x_ptr + row * stride_row + cols
    x = tl.load(ptrs, mask=mask, other=0.0)
    norm = tl.sqrt(tl.sum(x * x, axis=0))
    # normalise in place: saves allocating and writing a second buffer
    tl.store(ptrs, x / tl.where(norm < eps, eps, norm), mask=mask)


def custom_kernel(data: input_t) -> output_t:
    x = data.contiguous()
    rows, cols = x.shape
    l2norm_rows_kernel[(rows,)](x, x.stride(0), cols, 1e-12, BLOCK=triton.next_power_of_2(cols))
    return x
