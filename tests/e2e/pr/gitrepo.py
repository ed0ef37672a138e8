"""A throwaway git repository of KernelBench-format submissions, committed step by step (gitpython)."""

from __future__ import annotations

from pathlib import Path

import git

from tests.kernelfiles import KERNELS

REFERENCE = (KERNELS / "spine" / "reference.py").read_text()

CORRECT = '''"""Affine map in plain torch (correct)."""
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        y = x * 2.0
        return y + 1.0
'''

# the head version: lines 7-8 change; line 8 raises, so the builds check fails with a span on it
RAISES = '''"""Affine map in plain torch (correct)."""
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        y = x * 2.0
        raise RuntimeError("scale not supported: " + str(y.shape))
'''

TRITON_IMPORTER = '''"""Affine map through a Triton kernel kept in a helper module."""
import torch
import torch.nn as nn
import triton

from ops.affine import affine_kernel


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        affine_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
'''

TRITON_OP = '''import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0 + {bias}, mask=mask)
'''


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.git = git.Repo.init(root, initial_branch="main")
        with self.git.config_writer() as cw:
            cw.set_value("user", "name", "Test").set_value("user", "email", "test@example.invalid")

    def write(self, files: dict[str, str | None]) -> None:
        for rel, text in files.items():
            p = self.root / rel
            if text is None:
                p.unlink()
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)

    def commit(self, message: str, files: dict[str, str | None]) -> str:
        self.write(files)
        self.git.git.add(A=True)
        return self.git.index.commit(message).hexsha
