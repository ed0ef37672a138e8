"""Wraps the reference's Model in torch.compile: Inductor, not the submission, writes the kernel
(and under tracing it runs the reference's own aten::_softmax).
Expect: builds=pass, correctness=pass, integrity=fail
Defect: compiles_reference
"""

import torch
import torch.nn as nn
import triton  # noqa: F401 - looks like a Triton submission
from reference import Model


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.compile(Model())

    def forward(self, x):
        return self.inner(x)
