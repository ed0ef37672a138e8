"""A hostile reference (task code: the reference child runs it, and a pull request can bring its own
task folder). While it computes the integrity probe's expected outputs it plants FIFOs in that
probe's folder, its own transfer folder, under the names the submission's outputs will be copied to
(call-1.pt ... outputs.pt). The parent copies nothing over a name already there, then opened each by
path with a blocking open: the review hung for good (seen: the reviewer parked in the kernel's FIFO
open, wait_for_partner). Expected: the parent reads those files through safe_files (no blocking
open, regular files only), counts them as no output, and the review ends with a verdict. Use it as
the reference.py of a KernelBench folder whose submission is a correct kernel."""
import os

import torch
import torch.nn as nn


def _plant():
    xfer = os.path.join(os.path.dirname(os.getcwd()), "xfer")
    for case in os.listdir(xfer):
        for d in os.listdir(os.path.join(xfer, case)) if os.path.isdir(os.path.join(xfer, case)) else []:
            folder = os.path.join(xfer, case, d)
            if d.startswith(("integrity-", "many-calls-")):
                for n in ("call-1.pt", "call-2.pt", "call-3.pt", "inputs-after-1.pt", "outputs.pt"):
                    try:
                        os.mkfifo(os.path.join(folder, n))
                    except OSError:
                        pass


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _plant()
        return x * 2.0 + 1.0


rows = 8
cols = 300


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
