"""Row sums of a long fp32 row through ``x.float()`` (the reference upcasts "for safety", as many
KernelBench and Liger references do): on the float64 copies the float64 judge would use, ``.float()``
rounds back to fp32, so there is no float64 reference and only the default fp32 tolerance
(1e-5 / 1.3e-6) is left. Shared reference of the upcast_reference family."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.float().sum(dim=1)


batch_size = 128
dim = 32768


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
