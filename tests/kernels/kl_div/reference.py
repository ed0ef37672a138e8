"""KL divergence between two distributions (KernelBench level-1 "KLDivLoss", sizes cut for the CPU
interpreter): torch's kl_div computes target * (log target - input) through xlogy, which is 0 where the
target is exactly 0 (one-hot or underflowed targets). Shared reference of the kl_div family."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.kl_div(torch.log(predictions), targets, reduction="none")


batch_size = 16
input_shape = (256,)


def get_inputs():
    return [torch.randn(batch_size, *input_shape).softmax(dim=-1),
            torch.randn(batch_size, *input_shape).softmax(dim=-1)]


def get_init_inputs():
    return []
