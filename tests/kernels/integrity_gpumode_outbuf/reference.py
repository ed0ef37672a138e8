"""Matmul whose input tuple carries the output buffer c (GPU MODE reference-kernels layout, written for
this project): generate_input returns (a, b, c) with c from torch.empty, and ref_kernel returns a new
tensor a @ b without touching c, so writing c is what a submission is expected to do, not an input
mutation. Shared reference of the integrity_gpumode_outbuf family."""

import torch
from task import input_t, output_t
from utils import make_match_reference


def ref_kernel(data: input_t) -> output_t:
    a, b, _c = data
    return a @ b


def generate_input(m: int, n: int, k: int, seed: int) -> input_t:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    a = torch.randn(m, k, device="cuda", dtype=torch.float32, generator=gen)
    b = torch.randn(k, n, device="cuda", dtype=torch.float32, generator=gen)
    return (a, b, torch.empty(m, n, device="cuda", dtype=torch.float32))


check_implementation = make_match_reference(ref_kernel, rtol=1e-4, atol=1e-4)
