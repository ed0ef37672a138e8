"""forward never returns (a spin loop), on a tiny input: a hang, not interpreter slowness.
Expect: builds=fail, overall=reject
"""

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        while True:
            pass
