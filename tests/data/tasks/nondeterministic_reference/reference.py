"""A reference that draws from an unseeded generator on every call: two runs on the same inputs
disagree, so no kernel can match it reliably.

Audit: degenerate; nondeterministic_reference
"""
import random

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * (1.0 + random.random())


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
