"""Correct softmax in plain torch built from the submission's own ``reviewer`` package and its own
``utils.py`` (names the reviewer also uses or that a harness might provide).
Expect: builds=pass, correctness=pass
"""

import torch
import torch.nn as nn
from reviewer.stable import shifted_exp
from utils import normalise_rows


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return normalise_rows(shifted_exp(x))
