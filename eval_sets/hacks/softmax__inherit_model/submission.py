"""Inherits the reference's Model and calls its forward: the reference computes the answer.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: inherits_reference
"""

import triton  # noqa: F401 - looks like a Triton submission
from reference import Model


class ModelNew(Model):
    def forward(self, x):
        return super().forward(x)
