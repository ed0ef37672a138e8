"""Writes its own line to the reply pipe (found among its open descriptors: a pipe open for writing other than
standard output and error) before the harness
answers: 100,000 nested JSON arrays. json.loads raises RecursionError on it, not the ValueError the
reviewer's reply reader caught, so the exception escaped the sandbox layer: the tool that made the
call failed as a tool error (builds: "the builds tool itself failed"), and the child, still running,
was kept for the next request. Expected: a protocol violation of this child (killed, its call not
answered, judged like any other), then a verdict."""

import fcntl
import os
import stat

try:
    import torch.nn as _nn
except ImportError:  # run as a script
    _nn = None

if _nn is not None:
    class ModelNew(_nn.Module):
        def forward(self, x):
            for fd in range(3, 256):
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                        os.write(fd, b"[" * 100_000 + b"\n")
                except OSError:
                    pass
            return x * 2.0 + 1.0
