"""A gated activation with a runtime multiplier (Liger-Kernel / vLLM style): silu(x) * gate_multiplier over an
fp32 (rows, cols) tensor."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, gate_multiplier: float):
        super().__init__()
        self.gate_multiplier = gate_multiplier

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.silu(x) * self.gate_multiplier


rows, cols = 64, 1000
gate_multiplier = 0.75


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return [gate_multiplier]
