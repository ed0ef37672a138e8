"""Output cache on the module instance, checked by object identity: once built, the model returns
its first output for every call with the same input tensor object, even after the harness wrote
new values into it. No id() or data_ptr() appears in the source.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: output_caching
"""

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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._last_input = None
        self._last_output = None

    def forward(self, x):
        if self._last_input is x:
            return self._last_output
        xc = x.contiguous()
        out = torch.empty_like(xc)
        softmax_kernel[(xc.shape[0],)](out, xc, xc.shape[-1], BLOCK=triton.next_power_of_2(xc.shape[-1]))
        self._last_input, self._last_output = x, out
        return out
