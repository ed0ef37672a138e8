"""RGB to grayscale in the GPU MODE layout (generate_input / ref_kernel / check_implementation): an
H x W x 3 fp32 image in [0, 1] to H x W luminance; sized for the CPU interpreter."""

import torch
from task import input_t, output_t
from utils import make_match_reference

WEIGHTS = (0.2989, 0.5870, 0.1140)


def ref_kernel(data: input_t) -> output_t:
    r, g, b = data[..., 0], data[..., 1], data[..., 2]
    return WEIGHTS[0] * r + WEIGHTS[1] * g + WEIGHTS[2] * b


def generate_input(size: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return torch.rand(size, size, 3, device="cuda", dtype=torch.float32, generator=gen).contiguous()


check_implementation = make_match_reference(ref_kernel, rtol=1e-4, atol=1e-4)
