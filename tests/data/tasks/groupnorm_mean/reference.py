"""GroupNorm followed by the mean over every non-batch dimension: each group is normalised to mean 0
and the affine parameters start at weight 1, bias 0, so the output is 0 up to rounding for every input
(the shape of a structurally degenerate GroupNorm->Mean baseline).

Audit: degenerate; insensitive_input, impostor_accepted=zeros
"""
import torch
import torch.nn as nn

batch_size = 32
channels = 64
num_groups = 8
height = 16
width = 16


class Model(nn.Module):
    def __init__(self, channels, num_groups):
        super().__init__()
        self.norm = nn.GroupNorm(num_groups, channels)

    def forward(self, x):
        return self.norm(x).mean(dim=[1, 2, 3])


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [channels, num_groups]
