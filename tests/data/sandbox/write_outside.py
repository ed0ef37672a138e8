"""Tries to write into the reviewer's installed package (a later review would run it), into the
reference child's copy of the task, and into its own working directory, and reports what happened
as its output: 1.0 where the write succeeded."""

import os
from pathlib import Path

import torch.nn as nn

import tools  # the reviewer's package is on the child's path

TARGET = Path(tools.__file__).parent / "kreview_sandbox_write_probe.py"


def _try(path: Path) -> float:
    try:
        path.write_text("raise SystemExit('planted by a submission')\n")
    except OSError:
        return 0.0
    return 1.0


class ModelNew(nn.Module):
    def forward(self, x):
        y = x * 2.0 + 1.0
        y[0, 0] = _try(TARGET)
        y[0, 1] = _try(Path(os.getcwd()) / "scratch.txt")
        y[0, 2] = _try(Path(os.getcwd()).parent / "reference" / "src" / "planted.py")
        return y
