"""Starts a grandchild that would outlive a naive timeout, then hangs."""

import os
import subprocess
import sys
import time

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        # the working directory in its command line lets the test find it from outside the
        # child's PID namespace, where this pid means nothing
        marker = "grandchild of " + os.getcwd()
        p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", marker])
        with open("grandchild.pid", "w") as fh:
            fh.write(str(p.pid))
        time.sleep(600)
