"""forward raises on every call.
Expect: builds=fail, overall=reject
"""

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        raise RuntimeError("kernel launch failed: invalid configuration argument")
