"""Row-wise softmax over the last dimension (KernelBench style), small enough for a quick review.

The task ships helper modules whose names the reviewer also uses: a ``tools`` package, a
``reviewer`` package and a ``utils.py`` (next to the reference and each submission). The reference
and every submission must import these, not the reviewer's (tools/engine/sandbox/own_modules.py)."""

import torch
import torch.nn as nn
from tools.launch import next_pow2  # the task's own helper package, the reference side of the check

import tools

assert tools.OWNER == "task"


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch_size = 16
dim = 300


def get_inputs():
    assert next_pow2(dim) >= dim
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
