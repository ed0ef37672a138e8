"""Softmax whose wrapper takes a two-pass chunked kernel for rows over 8192 columns, and that
path walks full 4096-column chunks only: the last ``n_cols % 4096`` columns are neither counted nor
written. The nominal rows (256) and the sizes the search picks never take that path (or take it
only at multiples of 4096); the host-branch coverage sees `if cols > WIDE:` never true and aims a
size at it (dim=8193), which fails.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

WIDE = 8192
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
