"""1-D fp32 vector addition in the GPU MODE layout (generate_input / ref_kernel /
check_implementation), sized for the CPU interpreter; written for these tests."""

import torch
from task import input_t, output_t
from utils import make_match_reference


def ref_kernel(data: input_t) -> output_t:
    a, b = data
    return a + b


def generate_input(size: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    a = torch.randn(size, device="cuda", dtype=torch.float32, generator=gen)
    b = torch.randn(size, device="cuda", dtype=torch.float32, generator=gen)
    return (a, b)


check_implementation = make_match_reference(ref_kernel, rtol=1e-5, atol=1e-6)
