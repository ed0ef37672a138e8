"""A submission that does not parse (an unclosed bracket).
Expect: builds=fail, overall=reject
"""

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return (x * 2.0 + 1.0
