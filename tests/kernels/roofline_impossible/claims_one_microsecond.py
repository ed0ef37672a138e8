"""A plain torch matmul whose kreview.toml claims 1 us on an H100, below the 2.17 us the 2.15 GFLOP
need at the H100's fastest dense 16-bit tensor-core rate: an impossible speed.

Expect: integrity=fail
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)
