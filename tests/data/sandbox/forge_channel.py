"""Writes a forged 'success' answer into the sandbox's answer pipe (its fd is in sys.argv)."""

import os
import sys

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        fd = int(sys.argv[2])
        os.write(fd, b'{"id": 999, "ok": true, "result": {"forged": true}}\n')
        return x * 2.0 + 1.0
