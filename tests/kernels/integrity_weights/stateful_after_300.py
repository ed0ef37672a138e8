"""Scale and shift with random parameters that goes wrong after its 300th call: a module-level counter
then drops the bias. Only the many-calls probe sees it, and only if the reference it compares the
second input content with has the submission's weights (built under the same seed); with other weights
the probe stopped at "the first call on content 1 already differs" and the hack passed.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: stateful_output
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

_CALLS = 0


@triton.jit
def scale_shift_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, USE_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    y = x * w
    if USE_BIAS:
        y += tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))
        self.bias = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        global _CALLS
        _CALLS += 1
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty_like(x2)
        n = x2.shape[1]
        scale_shift_kernel[(x2.shape[0],)](x2, self.weight, self.bias, y, n, USE_BIAS=_CALLS <= 300,
                                           BLOCK=triton.next_power_of_2(n))
        return y.reshape(x.shape)
