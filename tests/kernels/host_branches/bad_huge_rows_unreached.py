"""The same tail-dropping chunked path as bad_wide_rows_drop_tail.py, taken only for rows over
2^22 columns: a size on the far side of that threshold (4 x 4194305 elements) is over what the
review may run here, so the branch `if cols > WIDE:` stays untaken and generality is unverified,
naming the branch and the sizes tried, instead of passing on the paths that ran.
Expect: builds=pass, correctness=pass, generality=unverified
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

WIDE = 1 << 22
CHUNK = 4096


@triton.jit
def softmax_row(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(y_ptr + row * n_cols + offs, (num / tl.sum(num, axis=0)).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_chunked(x_ptr, y_ptr, n_cols, CHUNK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, CHUNK)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols - CHUNK + 1, CHUNK):  # full chunks only: the tail is never read
        mask = start + offs < n_cols
        x = tl.load(x_ptr + row * n_cols + start + offs, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols - CHUNK + 1, CHUNK):  # nor written
        mask = start + offs < n_cols
        x = tl.load(x_ptr + row * n_cols + start + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * n_cols + start + offs, (tl.exp(x - m) / s).to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"softmax: unsupported dtype {x.dtype}")
    if x.dim() == 1:
        return softmax(x.unsqueeze(0)).squeeze(0)
    if not x.is_contiguous():
        x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    if cols > WIDE:
        softmax_chunked[(rows,)](x, y, cols, CHUNK=CHUNK)
    else:
        softmax_row[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        return softmax(x)
