"""The class is misnamed: no ModelNew to construct.
Expect: builds=fail, overall=reject
"""

import torch.nn as nn


class ModelFast(nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0
