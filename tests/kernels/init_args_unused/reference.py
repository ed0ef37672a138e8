"""ReLU followed by dropout (the identity in eval mode), whose constructor also takes a scale its forward
never uses, as some KernelBench tasks pass constructor arguments their forward ignores. Neither float
tells a kernel apart: the scale changes nothing in the reference, and the dropout probability varied
(0.7 -> 1.3) is refused by nn.Dropout, so that case is not applicable, never the kernel's failure."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dropout_p: float, scale: float):
        super().__init__()
        self.dropout = nn.Dropout(dropout_p)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(torch.relu(x))


batch_size = 16
dim = 1024
dropout_p = 0.7
scale = 2.0


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [dropout_p, scale]
