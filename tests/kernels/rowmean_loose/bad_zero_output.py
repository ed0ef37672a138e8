"""Zeros hiding inside a loose atol: returns zeros of the right shape. Every reference value is
within atol=0.1 of zero, so the element-wise comparison passes; the reference's output varies
while this one is constant.
Expect: builds=pass, correctness=fail, overall=reject
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)
