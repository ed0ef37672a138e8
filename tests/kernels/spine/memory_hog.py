"""forward allocates far beyond the sandbox's memory limit.
Expect: builds=fail, overall=reject
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        hog = torch.ones(64 * 2**30 // 4)  # 64 GiB of float32
        return x * 2.0 + 1.0 + hog[0] * 0
