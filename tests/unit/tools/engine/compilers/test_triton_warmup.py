"""The compile child's warm-up (tools/engine/compilers/triton_child.py ``install``) swallows its failures,
since only time is at stake; this checks it does not fail everywhere unseen: with the installed Triton
the warm-up kernel compiles to PTX and a cubin for sm_90, without a GPU."""

from __future__ import annotations

import pytest


def test_the_warmup_kernel_compiles_for_sm_90(tmp_path, monkeypatch) -> None:
    pytest.importorskip("triton")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))  # a fresh cache: a real compile
    from tools.engine.compilers.triton_child import compile_warmup_kernel
    from tools.engine.compilers.triton_warmup import scale

    compiled = compile_warmup_kernel(scale)
    assert compiled.name == "scale"
    assert ".target sm_90" in compiled.asm["ptx"]
    assert compiled.asm["cubin"][:4] == b"\x7fELF"
