"""LeakyReLU as a manifest task: ``inputs(seed, n, slope)`` returns the tensor and the slope, which
the reference and the submission both take as an argument."""

import torch
import torch.nn.functional as F


def inputs(seed: int, n: int, slope: float):
    return [torch.randn(n), slope]


def reference(x: torch.Tensor, slope: float) -> torch.Tensor:
    return F.leaky_relu(x, slope)
