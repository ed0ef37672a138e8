"""Root mean square over the last dim of an fp16 (batch, dim) tensor, computed by the reference in
fp16: x * x overflows fp16 (max 65504) once |x| passes ~256, so at the numerics probe's x1e3 inputs
the reference returns inf where the exact result (~1e3) is finite and representable in fp16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sqrt((x * x).mean(dim=-1))


batch = 8
dim = 512


def get_inputs():
    return [torch.randn(batch, dim, dtype=torch.float16)]


def get_init_inputs():
    return []
