"""A reference that never returns: the audit reports a hang once the call limit passes.

Audit: degenerate; reference_hang
"""
import time

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        while True:
            time.sleep(0.5)


def get_inputs():
    return [torch.randn(4, 4)]


def get_init_inputs():
    return []
