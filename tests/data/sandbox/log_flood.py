"""Correct output, but every call floods stdout and stderr with 80 MB each: the reviewer's logs and
run directory must stay bounded."""

import sys

import torch.nn as nn

_LINE = "x" * 999 + "\n"


class ModelNew(nn.Module):
    def forward(self, x):
        for _ in range(80_000):
            sys.stdout.write(_LINE)
            sys.stderr.write(_LINE)
        sys.stdout.flush()
        return x.clone()
