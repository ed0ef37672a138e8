"""A Triton softmax guarded the way GPU code guards its inputs (``assert x.is_cuda``) and checking
for a GPU before taking the kernel path: on the virtual device the guard holds and the kernel path,
the one a GPU would take, is the one reviewed.

Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_softmax(out_ptr, in_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    keep = cols < n_cols
    v = tl.load(in_ptr + row * stride + cols, mask=keep, other=-float("inf"))
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=keep)


def softmax(x: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda, "expected a CUDA tensor"
    assert torch.cuda.is_available()
    out = torch.empty_like(x)
    row_softmax[(x.shape[0],)](out, x, x.stride(0), x.shape[1], BLOCK_SIZE=triton.next_power_of_2(x.shape[1]))
    return out


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax(x.reshape(-1, x.shape[-1]).contiguous()).reshape(x.shape)
