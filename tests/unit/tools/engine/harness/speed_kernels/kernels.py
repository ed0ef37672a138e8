"""Kernels whose programs call @triton.jit helpers (tl.max, tl.sum, and helpers.py's): under the
interpreter every helper call patches triton.language again."""

import torch
import triton
import triton.language as tl
from triton.language import core

from helpers import row_max


@triton.jit
def _softmax(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    m = row_max(x)
    tl.static_assert(BLOCK >= 16)
    e = tl.exp(x - tl.max(x, axis=0) + (m - m))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(tl.where(mask, e, 0.0), axis=0), mask=mask)


@triton.jit
def _scaled_rows(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = core.program_id(0)
    total = 0.0
    for start in core.static_range(0, 2):
        offs = start * BLOCK + core.arange(0, BLOCK)
        total += tl.sum(core.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0), axis=0)
    offs = core.arange(0, BLOCK)
    core.store(out_ptr + row * n_cols + offs, total, mask=offs < n_cols)


def softmax(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    _softmax[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out


def scaled_rows(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    _scaled_rows[(x.shape[0],)](x, out, x.shape[1], BLOCK=32)
    return out


@triton.jit
def _mixed_dtypes(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # every dtype path of the interpreter's numpy mapping: fp16, bf16 (raw bits), int8/32/64, uint8, bool
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    half = (x.to(tl.float16) * 3.0).to(tl.float32)
    brain = x.to(tl.bfloat16).to(tl.float32)
    ints = (x * 10.0).to(tl.int32).to(tl.int8).to(tl.int64).to(tl.float32)
    bytes_ = (x * 7.0).to(tl.uint8).to(tl.float32)
    flags = (x > 0).to(tl.float32)
    tl.store(out_ptr + row * n_cols + offs, half + brain + ints + bytes_ + flags, mask=mask)


def mixed_dtypes(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    _mixed_dtypes[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return out
