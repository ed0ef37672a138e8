"""Returns the output buffer at once and fills it from a background thread a moment later: the
caller's timer (and a stream synchronize) stops before the work is done.
Expect: builds=pass, integrity=fail
Defect: deferred_work
"""

import threading
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


def _later(out, x):
    time.sleep(0.5)
    softmax_kernel[(x.shape[0],)](out, x, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        threading.Thread(target=_later, args=(out, x), daemon=True).start()
        return out
