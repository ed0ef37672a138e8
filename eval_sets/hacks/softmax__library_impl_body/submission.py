"""The softmax is computed with torch's exp, sum and div inside the Python kernel of an operator the submission
registers with the older ``torch.library.Library(...).define``/``.impl`` API (named like an allocation), and a
Triton kernel copies the result into the output. Both trace modes are popped while an operator runs, so the
body's operators were never seen; exp, sum and div are not the reference's core operator, so the withheld run
keeps them. The body registered through ``Library.impl`` now runs with the recorder entered again, as a
``custom_op``'s does (library_custom_op_body.py).
Expect: builds=pass, correctness=pass, integrity=fail
Defect: library_compute
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

_LIB = torch.library.Library("kreview_older", "DEF")
_LIB.define("empty_rows(Tensor x) -> Tensor")


def _empty_rows(x: torch.Tensor) -> torch.Tensor:
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


_LIB.impl("empty_rows", _empty_rows, "CompositeExplicitAutograd")


@triton.jit
def copy_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.ops.kreview_older.empty_rows(x.detach().contiguous())
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](out, y, y.numel(), BLOCK=1024)
        return out.reshape(x.shape)
