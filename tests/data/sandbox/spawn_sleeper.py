"""Starts a grandchild that would outlive a naive timeout, then hangs."""

import subprocess
import sys
import time

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open("grandchild.pid", "w") as fh:
            fh.write(str(p.pid))
        time.sleep(600)
