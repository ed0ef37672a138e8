"""log of standard-normal inputs: half the reference's outputs are NaN on its own nominal inputs, so a
check that tolerates NaN accepts any kernel producing NaN there.

Audit: degenerate; nonfinite_reference
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.log(x)


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
