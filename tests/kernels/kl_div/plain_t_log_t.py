"""Element-wise KL divergence written out as t * (log t - log p) (as in many tutorial ports): right on
the nominal softmax inputs, but where a target is exactly 0 it is 0 * -inf = NaN while torch's kl_div
(xlogy) gives 0. The exact-zero probe, derived from the reference's log/kl_div, must fail it.
Expect: builds=pass, correctness=pass, numerics=fail
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def kl_div_kernel(p_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=1.0)
    t = tl.load(t_ptr + offs, mask=mask, other=1.0)
    term = t * (tl.log(t) - tl.log(p))
    tl.store(out_ptr + offs, term, mask=mask)


class ModelNew(nn.Module):
    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p, t = predictions.contiguous(), targets.contiguous()
        out = torch.empty_like(p)
        n = p.numel()
        kl_div_kernel[(triton.cdiv(n, 1024),)](p, t, out, n, BLOCK=1024)
        return out
