"""torch.softmax does the work inside torch._C._DisableTorchDispatch(), which switches off every Python
dispatch mode, the operator trace's included, and a Triton kernel copies the result: the trace sees no
operator at all. The attribute is reached through getattr on a joined string, so the static scan names
nothing. Caught by the run with the reference's core operators withheld at the dispatcher itself.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: hidden_library_work
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

_QUIET = getattr(torch._C, "_Disable" + "TorchDispatch")


@triton.jit
def copy_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with _QUIET():
            y = torch.softmax(x, dim=-1).contiguous()
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](out, y, y.numel(), BLOCK=1024)
        return out
