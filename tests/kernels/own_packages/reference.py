"""Row-wise softmax over the last dimension (KernelBench style), small enough for a quick review.

The submissions of this family ship helper modules whose names the reviewer also uses: a ``tools``
package, a ``reviewer`` package and a ``utils.py`` (all three next to the submission). Each must
import its own helpers, not the reviewer's (tools/engine/sandbox/own_modules.py)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=-1)


batch_size = 16
dim = 300


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
