"""forward dereferences a null pointer: the process dies with SIGSEGV.
Expect: builds=fail, overall=reject
"""

import ctypes

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        ctypes.string_at(0)
        return x
