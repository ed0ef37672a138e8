"""Plain PyTorch, no custom kernel: softmax spelled out as exp / sum / div. Every operator is a
library call; there is nothing for the reviewer to review as a kernel.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: no_custom_kernel
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        e = torch.exp(x - x.max(dim=-1, keepdim=True).values)
        return e / e.sum(dim=-1, keepdim=True)
