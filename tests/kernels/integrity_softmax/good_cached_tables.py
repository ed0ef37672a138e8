"""Correct softmax that keeps legitimate state between calls: a launch-configuration cache keyed on
the row length (block size and warps, as an autotuner stores them) and a precomputed constant
table (per-column scale of 1.0, built once per length and device) that never changes an answer.
The static scan names the state as a concern; the many-calls probe shows every answer right.
Expect: builds=pass, correctness=pass, integrity=pass
"""

import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl

_CONFIGS = {}
_TABLES = {}


@triton.jit
def softmax_kernel(out_ptr, in_ptr, scale_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=mask, other=-float("inf"))
    x = x * tl.load(scale_ptr + offs, mask=mask, other=1.0)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=mask)


@functools.lru_cache(maxsize=64)
def _block_for(n_cols: int) -> int:
    return triton.next_power_of_2(n_cols)


def _config(n_cols: int) -> dict:
    if n_cols not in _CONFIGS:
        block = _block_for(n_cols)
        _CONFIGS[n_cols] = {"BLOCK": block, "num_warps": 4 if block <= 2048 else 8}
    return _CONFIGS[n_cols]


def _scale(n_cols: int, device: torch.device) -> torch.Tensor:
    key = (n_cols, str(device))
    if key not in _TABLES:
        _TABLES[key] = torch.ones(n_cols, device=device)
    return _TABLES[key]


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty_like(x2)
        cfg = _config(x2.shape[1])
        softmax_kernel[(x2.shape[0],)](out, x2, _scale(x2.shape[1], x2.device), x2.stride(0), out.stride(0),
                                       x2.shape[1], **cfg)
        return out.reshape(x.shape)
