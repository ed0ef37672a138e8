"""Compilers read the submission's source, so they run in the sandbox: an ``#include`` of a host file
finds nothing to quote into the compile log (issue 28: nvcc ran on the host, and a ``#include`` of
a file outside the submission leaked its lines into the evidence)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tools.engine.backends.cuda import CudaUnit, compile_ptx, find_nvcc


def test_an_include_of_a_host_file_finds_nothing(tmp_path: Path) -> None:
    nvcc = find_nvcc()
    if nvcc is None or shutil.which("bwrap") is None:
        pytest.skip("needs nvcc and bubblewrap")
    secret = Path("/root") / f"kreview-secret-{tmp_path.name}.h"
    if not Path("/root").is_dir():
        pytest.skip("no /root to plant a host file in")
    secret.write_text("int SECRET_TOKEN_8d1f = 42;\nthis line is not C at all\n")
    try:
        src = CudaUnit(name="leak", text=f'#include "{secret}"\n__global__ void k(float* x) {{ x[0] = 1; }}\n',
                       file="submission.py", line=1)
        got = compile_ptx(src, "sm_90", nvcc, tmp_path / "out")
    finally:
        secret.unlink()
    log = "\n".join(got.artifacts.values()) + got.message
    assert "SECRET_TOKEN_8d1f" not in log and "not C at all" not in log
    assert got.status == "unavailable" and "not available here" in got.message  # the header is absent there
