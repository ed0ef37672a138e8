"""Mean cross-entropy in Triton: one program per row computes logsumexp(row) - row[target] with the
max subtracted; a second single-program kernel averages the row losses."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ce_rows_kernel(logits_ptr, targets_ptr, losses_ptr, n_classes, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * row_stride + cols, mask=cols < n_classes, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    target = tl.load(targets_ptr + row)
    picked = tl.load(logits_ptr + row * row_stride + target).to(tl.float32)
    tl.store(losses_ptr + row, lse - picked)


@triton.jit
def mean_kernel(v_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(v_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        logits = predictions.contiguous()
        targets = targets.contiguous()
        n_rows, n_classes = logits.shape
        losses = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        ce_rows_kernel[(n_rows,)](logits, targets, losses, n_classes, logits.stride(0),
                                  BLOCK=triton.next_power_of_2(n_classes))
        out = torch.empty((), dtype=logits.dtype, device=logits.device)
        mean_kernel[(1,)](losses, out, n_rows, BLOCK=256)
        return out
