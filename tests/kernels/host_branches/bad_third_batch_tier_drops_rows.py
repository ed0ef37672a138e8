"""Row softmax whose wrapper picks a launch shape by batch, as leaderboard kernels often do: one row per
program up to 3000 rows, two rows per program up to 4000, and four rows per program above that, with a
grid of ``rows // 4``: the last ``rows % 4`` rows are never written. Each tier starts past the sizes the
search tries (2049 rows at most here), so the host-branch coverage aims a size at each: 3001 rows (the
middle tier, correct) and then 4001 rows, which fails. The two aimed sizes together cost more than the
branches' shared allowance: the cheapest size past each untaken side still runs, so the last tier is
checked rather than left unverified.
Expect: builds=pass, correctness=pass, generality=fail, overall=reject
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

TWO_ROWS = 3000
FOUR_ROWS = 4000


@triton.jit
def softmax_rows(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    for r in tl.static_range(ROWS):
        row = pid * ROWS + r
        ok = mask & (row < n_rows)
        x = tl.load(x_ptr + row * n_cols + offs, mask=ok, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        tl.store(y_ptr + row * n_cols + offs, (num / tl.sum(num, axis=0)).to(y_ptr.dtype.element_ty), mask=ok)


def softmax(x: torch.Tensor) -> torch.Tensor:
    if x.dim() == 1:
        return softmax(x.unsqueeze(0)).squeeze(0)
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    block = triton.next_power_of_2(cols)
    if rows > FOUR_ROWS:
        softmax_rows[(rows // 4,)](x, y, rows, cols, ROWS=4, BLOCK=block)  # drops the last rows % 4 rows
    elif rows > TWO_ROWS:
        softmax_rows[(triton.cdiv(rows, 2),)](x, y, rows, cols, ROWS=2, BLOCK=block)
    else:
        softmax_rows[(rows,)](x, y, rows, cols, ROWS=1, BLOCK=block)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        return softmax(x)
