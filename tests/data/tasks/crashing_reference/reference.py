"""A reference whose forward raises on its own nominal inputs: the audit reports it, it does not crash.

Audit: degenerate; reference_failed
"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x @ torch.ones(3, 5)  # shapes that cannot multiply


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
