"""A reference that updates its input in place and returns it: a harness reusing the inputs hands the
kernel values the reference already changed.

Audit: degenerate; reference_mutates_inputs
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        x.mul_(2.0).add_(1.0)
        return x.clone()


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
