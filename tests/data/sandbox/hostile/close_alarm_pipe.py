"""At import, closes the child's alarm pipe before doing anything an alarm would name: it finds the pipe
among its open descriptors (a write end the harness made non-blocking; the reply pipe blocks) and closes
it, so a later frame access would go unreported. Expected: the parent sees the pipe closed by a child that
is alive and answering, which is itself an alarm ("alarm channel closed") and fails integrity."""
import fcntl
import os

import torch.nn as nn

for _name in os.listdir("/proc/self/fd"):
    _fd = int(_name)
    try:
        _flags = fcntl.fcntl(_fd, fcntl.F_GETFL)
        _what = os.readlink(f"/proc/self/fd/{_name}")
    except OSError:
        continue
    if _what.startswith("pipe:") and _flags & os.O_ACCMODE == os.O_WRONLY and _flags & os.O_NONBLOCK:
        os.close(_fd)


class ModelNew(nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0
