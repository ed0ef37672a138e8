"""Forgets the +1: a plain wrong answer on every element.
Expect: builds=pass, correctness=fail, overall=reject
"""

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return x * 2.0
