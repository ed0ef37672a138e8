"""Walks up its ancestors through /proc and raises with every secret-looking variable it can read
from their environments (the reviewer's, the shell's), so that the secrets would land in the
review's evidence. Expected: it finds none (own PID namespace), or what it finds is redacted."""

import os

import torch.nn as nn


def _ancestors_environ() -> list[str]:
    found, pid = [], os.getpid()
    for _ in range(8):
        try:
            with open(f"/proc/{pid}/status") as fh:
                ppid = int(next(line for line in fh if line.startswith("PPid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            break
        if ppid <= 0:
            break
        try:
            with open(f"/proc/{ppid}/environ", "rb") as fh:
                found += [v.decode(errors="replace") for v in fh.read().split(b"\0") if b"KREVIEW_T" in v]
        except OSError as exc:
            found.append(f"{ppid}: {exc.strerror}")
        pid = ppid
    return found


class ModelNew(nn.Module):
    def forward(self, x):
        raise RuntimeError(f"found {_ancestors_environ()}")
