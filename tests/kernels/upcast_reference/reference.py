"""Row sums of a long fp32 row through ``x.float()`` (the reference upcasts "for safety", as many
KernelBench and Liger references do): on the float64 copies the float64 judge uses, ``.float()`` would
round back to fp32; the reference child keeps float64 tensors float64 through ``.float()`` and
``.to(torch.float32)`` during the float64 run, so the float64 judge decides. Shared reference of the
upcast_reference family (tests/kernels/float32_reference has the same kernels against a NumPy
float32 reference, which has no float64 run)."""

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
