"""Matrix addition into a caller-provided output buffer (GPU MODE reference-kernels layout,
written for this project): generate_input returns (a, b, out) and ref_kernel writes a + b into out
and returns it. Shared reference of the gpumode_contract family (a copy of integrity_gpumode's)."""

import torch
from task import input_t, output_t
from utils import make_match_reference


def ref_kernel(data: input_t) -> output_t:
    a, b, out = data
    out.copy_(a + b)
    return out


def generate_input(size: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    a = torch.randn(size, size, device="cuda", dtype=torch.float32, generator=gen)
    b = torch.randn(size, size, device="cuda", dtype=torch.float32, generator=gen)
    return (a, b, torch.empty(size, size, device="cuda", dtype=torch.float32))


check_implementation = make_match_reference(ref_kernel, rtol=1e-5, atol=1e-6)
