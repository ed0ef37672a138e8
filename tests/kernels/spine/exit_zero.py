"""forward ends the process with status 0 before any result exists (a classic way to make a
harness that trusts exit codes report success).
Expect: builds=fail, overall=reject
"""

import os

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        os._exit(0)
