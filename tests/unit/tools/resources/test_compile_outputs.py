"""The Triton compile child names its output files; the parent copies only what it expects (plain
names with the right extension, regular files) from the child's folder into the run's artifacts,
never following a link or reading a FIFO, and never writing where a child-chosen path points."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

from tools.resources.triton_static import TritonStaticCompiler


def test_only_expected_regular_outputs_are_copied(tmp_path: Path) -> None:
    workdir = tmp_path / "triton-compile"
    scratch = workdir / "compile-out" / "1"
    scratch.mkdir(parents=True)
    host = tmp_path / "host-secret"
    host.write_text("secret")
    (scratch / "k.ptx").write_text("// ptx")
    (scratch / "k.ttgir").symlink_to(host)
    os.mkfifo(scratch / "k.cubin")
    (scratch / "k.amdgcn").write_text("asm")
    out = tmp_path / "run" / "artifacts" / "resources" / "triton" / "0-k" / "sm_90"
    compiler = object.__new__(TritonStaticCompiler)
    compiler.worker = SimpleNamespace(workdir=workdir)
    files = {"ptx": "k.ptx", "ttgir": "k.ttgir", "cubin": "k.cubin", "hsaco": "../../../host-secret",
             "amdgcn": str(tmp_path / "host-secret"), "evil": "k.amdgcn"}
    t0 = time.monotonic()
    kept = compiler._collect(files, scratch, out)
    assert time.monotonic() - t0 < 5
    assert kept == {"ptx": "k.ptx"}
    assert sorted(p.name for p in out.iterdir()) == ["k.ptx"] and not (out / "k.ptx").is_symlink()
    assert host.read_text() == "secret"
