"""Row sums of a long fp32 row computed by NumPy in float32 (``astype(np.float32)``, as references ported
from NumPy code do): on the float64 copies the float64 judge would use, the cast rounds back to float32,
and it cannot be intercepted, so there is no float64 reference and only the default fp32 tolerance
(1e-5 / 1.3e-6) is left. Shared reference of the float32_reference family."""

import numpy as np
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.detach().cpu().numpy().astype(np.float32).sum(axis=1)
        return torch.from_numpy(rows).to(x.device)


batch_size = 128
dim = 32768


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
