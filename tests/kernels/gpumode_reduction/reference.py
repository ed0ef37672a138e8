"""Sum of a 1-D fp32 vector, GPU MODE reference-kernels layout, written for this project after the public
"vectorsum" task: generate_input/ref_kernel/check_implementation."""

import torch
from task import input_t, output_t
from utils import make_match_reference


def ref_kernel(data: input_t) -> output_t:
    return data.sum()


def generate_input(size: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return torch.randn(size, device="cuda", dtype=torch.float32, generator=gen).contiguous()


check_implementation = make_match_reference(ref_kernel, rtol=1e-4, atol=1e-3)
