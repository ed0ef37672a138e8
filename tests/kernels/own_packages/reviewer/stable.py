"""Numerically stable pieces of a softmax, in plain torch."""

import torch


def shifted_exp(x: torch.Tensor) -> torch.Tensor:
    return torch.exp(x - x.amax(dim=-1, keepdim=True))
