"""Softmax whose wrapper picks its kernel by row length, like production kernels do: one block per
row up to 8192 columns, a two-pass chunked kernel above (masked tail: correct at every length). The
wrapper also refuses unsupported dtypes with its own ``raise``, copies non-contiguous inputs and
accepts 1-D input: branches that valid inputs of this task never take (the raise, the 1-D path) are
reported as info, never unverified; the long-row path is reached by a size aimed at its threshold.
Expect: builds=pass, correctness=pass, generality=pass
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
    for start in range(0, n_cols, CHUNK):
        mask = start + offs < n_cols
        x = tl.load(x_ptr + row * n_cols + start + offs, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    for start in range(0, n_cols, CHUNK):
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
