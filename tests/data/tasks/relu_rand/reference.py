"""ReLU on torch.rand inputs: every input is in [0, 1), where ReLU is the identity, so a kernel that
copies its input is exact on the nominal inputs.

Audit: degenerate; nonnegative_input, impostor_accepted=input 0 passed through
"""
import torch
import torch.nn as nn

batch_size = 16
dim = 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
