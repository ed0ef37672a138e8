"""Row-wise softmax over the last dim of a (batch, dim) tensor (a copy of the softmax family's reference, for the
issue-16 plan and device-path files reviewed by tests/e2e/test_verdict_determinism.py). The nominal dim, 256, is a power of
two, so a kernel whose tail handling is wrong for other row lengths passes it."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch = 4
dim = 256


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return []
