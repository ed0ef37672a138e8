"""Row sums of an fp16 (batch, dim) tensor, in fp16 (torch accumulates in fp32 internally and rounds
once). The family's kreview.toml names original/ as the implementation every file here is a port of."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=-1)


batch = 4
dim = 1024


def get_inputs():
    return [torch.randn(batch, dim, dtype=torch.float16)]


def get_init_inputs():
    return []
