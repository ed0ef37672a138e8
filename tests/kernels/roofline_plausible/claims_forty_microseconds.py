"""A plain torch matmul whose kreview.toml claims 40 us on an H100, above the 2.17 us the 2.15 GFLOP
need at the H100's fastest dense 16-bit tensor-core rate: plausible. False-positive guard for the
speed-of-light check: the claim is reported, and integrity is not failed (nor passed: a plausible
time proves nothing about integrity on its own).

Expect: integrity=unverified
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)
