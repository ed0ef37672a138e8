"""Half-precision matrix product (written for this project), small enough for the Triton
interpreter; the compiled-code review reads what each submission compiles to on sm_90 and sm_80."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


N = 128


def get_inputs():
    return [torch.randn(N, N, dtype=torch.float16), torch.randn(N, N, dtype=torch.float16)]


def get_init_inputs():
    return []
