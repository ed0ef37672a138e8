"""Tries to open a TCP connection to a server the test starts on the host's loopback (its port in
the environment's place: a file the test writes next to the submission), and reports 1.0 in its
output when it got through."""

import socket
from pathlib import Path

import torch.nn as nn


def _connects() -> float:
    port = int((Path(__file__).parent / "port.txt").read_text())
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            return 1.0
    except OSError:
        return 0.0


class ModelNew(nn.Module):
    def forward(self, x):
        y = x * 2.0 + 1.0
        y[0, 0] = _connects()
        return y
