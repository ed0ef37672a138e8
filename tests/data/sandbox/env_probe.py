"""Reports what the sandbox lets it see: output[0,0] = 1 if a parent secret leaked into os.environ,
output[0,1] = 1 if a reference output file exists anywhere under the sandbox root while it runs,
output[0,2] = 1 if HOME/TMPDIR/TRITON_CACHE_DIR point outside its own working directory (HOME is its
working directory's home folder, bound where an ordinary user's home would be)."""

import glob
import os

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.zeros_like(x)
        leaked = any(k in os.environ for k in ("KREVIEW_TEST_SECRET", "OPENAI_API_KEY", "GITHUB_TOKEN"))
        root = os.path.dirname(os.path.dirname(os.getcwd()))
        ref_files = glob.glob(os.path.join(root, "**", "reference-out*"), recursive=True)
        cwd = os.getcwd()
        outside = any(not os.environ.get(v, "").startswith(cwd) for v in ("TMPDIR", "TRITON_CACHE_DIR"))
        outside = outside or not os.path.samefile(os.environ["HOME"], os.path.join(cwd, "home"))
        y[0, 0], y[0, 1], y[0, 2] = float(leaked), float(bool(ref_files)), float(outside)
        return y
