"""Histogram of 256 byte values in the GPU MODE layout (generate_input / ref_kernel /
check_implementation), after the public GPU MODE histogram task; sized for the CPU interpreter."""

import torch
from task import input_t, output_t
from utils import make_match_reference

BINS = 256


def ref_kernel(data: input_t) -> output_t:
    return torch.bincount(data.to(torch.int64), minlength=BINS).to(torch.int32)


def generate_input(size: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return torch.randint(0, BINS, (size,), device="cuda", dtype=torch.int32, generator=gen)


check_implementation = make_match_reference(ref_kernel, rtol=0, atol=0)
