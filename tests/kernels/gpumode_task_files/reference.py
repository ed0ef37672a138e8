"""Vector (matrix) addition in fp16, GPU MODE reference-kernels layout, written for this project
after the public "vectoradd" task: generate_input/ref_kernel/check_implementation."""

import torch
from task import input_t, output_t
from utils import make_match_reference


def ref_kernel(data: input_t) -> output_t:
    a, b = data
    return a + b


def generate_input(size: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    a = torch.randn(size, size, device="cuda", dtype=torch.float16, generator=gen).contiguous()
    b = torch.randn(size, size, device="cuda", dtype=torch.float16, generator=gen).contiguous()
    return (a, b)


check_implementation = make_match_reference(ref_kernel, rtol=1e-3, atol=1e-3)
