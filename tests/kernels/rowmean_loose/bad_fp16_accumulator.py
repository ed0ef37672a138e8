"""fp16 accumulator: the row is summed in float16 (10-bit mantissa) for float32 inputs. The result
is within the task's loose tolerance, but its error against a float64 mean is thousands of times
the float32 reference's own: a numerics finding that the tolerance hides.
Expect: builds=pass, correctness=pass, numerics=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rowmean_kernel(x_ptr, y_ptr, stride_m, stride_n, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float16)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_m + offs * stride_n, mask=offs < n_cols, other=0.0)
        acc += x.to(tl.float16)
    total = tl.sum(acc, axis=0)
    tl.store(y_ptr + row, (total.to(tl.float32) / n_cols).to(y_ptr.dtype.element_ty))


class ModelNew(nn.Module):
    def forward(self, x):
        m, n = x.shape
        y = torch.empty(m, dtype=x.dtype, device=x.device)
        rowmean_kernel[(m,)](x, y, x.stride(0), x.stride(1), n, BLOCK=1024)
        return y
