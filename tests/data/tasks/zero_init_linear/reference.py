"""A linear layer whose weight and bias are initialised to zero: the reference output is the constant 0
whatever the input (the shape of the zero-initialised KernelBench-derived baselines JAXBench fixed).

Audit: degenerate; constant_output, insensitive_input, zero_parameter, impostor_accepted=zeros
"""
import torch
import torch.nn as nn

batch_size = 64
in_features = 256
out_features = 128


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        nn.init.zeros_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, x):
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
