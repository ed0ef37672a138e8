"""Correct Triton softmax whose import plants poisoned modules under the reviewer's own module names
(the harness's, and the instruments it asks for later, such as ``virtual_gpu``). The harness loads
all of them before user code and keeps its own references, so none of the planted ones is ever
used: the verdicts are those of the kernel itself.
Expect: builds=pass, correctness=pass
"""

import sys
import types

import torch
import torch.nn as nn
import triton
import triton.language as tl


def _poisoned(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)

    def __getattr__(attr: str):
        raise RuntimeError(f"the harness used the submission's {name}.{attr}")

    mod.__getattr__ = __getattr__
    return mod


for _name in ("tools.engine", "tools.engine.counting", "tools.engine.harness", "tools.engine.harness.tensors",
              "tools.engine.harness.ops", "tools.engine.harness.op_table", "tools.engine.harness.programs",
              "tools.engine.harness.instruments",
              "tools.engine.harness.instruments.virtual_gpu", "tools.engine.harness.instruments.triton_launches",
              "tools.engine.harness.instruments.triton_sanitizer", "tools.engine.harness.instruments.pallas",
              "tools.engine.harness.virtual_gpu", "reviewer.core", "reviewer.core.errors"):
    sys.modules[_name] = _poisoned(_name)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_row_stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + offs, num / den, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        out = torch.empty_like(x2)
        softmax_kernel[(x2.shape[0],)](out, x2, x2.stride(0), out.stride(0), n_cols,
                                       BLOCK_SIZE=triton.next_power_of_2(n_cols))
        return out.reshape(x.shape)
