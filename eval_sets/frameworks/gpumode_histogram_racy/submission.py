import torch
import triton
import triton.language as tl
from task import input_t, output_t

BLOCK = 1024
BINS = 256


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    counts = tl.histogram(x, BINS)
    counts -= tl.where(tl.arange(0, BINS) == 0, BLOCK - tl.sum(mask.to(tl.int32), axis=0), 0)
    bins = hist_ptr + tl.arange(0, BINS)
    tl.store(bins, tl.load(bins) + counts)


def custom_kernel(data: input_t) -> output_t:
    x = data.contiguous()
    hist = torch.zeros(BINS, dtype=torch.int32, device=x.device)
    histogram_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, hist, x.numel(), BLOCK=BLOCK, BINS=BINS)
    return hist
