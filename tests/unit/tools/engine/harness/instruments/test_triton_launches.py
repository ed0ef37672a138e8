"""A kernel compiled ahead (``kernel.warmup(...)``) and launched as ``compiled[grid](*args)`` is a launch.

On an H200 the fused-softmax tutorial (``examples/fused_softmax_tutorial``) was failed by integrity as
"launched no kernel at all": its launches never pass through ``JITFunction.run``. Here the compiled
kernel's own launcher is replaced by a recorder (no GPU on this machine); the instrument must see
the launch, its kernel, grid, arguments and constexprs.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import triton
import triton.language as tl
from triton.compiler.compiler import CompiledKernel

from tools.engine.harness.instruments.triton_launches import triton_launches


@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


@pytest.mark.parametrize("with_constexprs", [True, False])
def test_a_precompiled_kernel_launch_is_recorded(monkeypatch: pytest.MonkeyPatch, with_constexprs: bool) -> None:
    import torch

    launched: list[tuple] = []
    monkeypatch.setattr(CompiledKernel, "__getitem__",
                        lambda self, grid: (lambda *args, stream=None: launched.append((grid, args))))
    compiled = object.__new__(CompiledKernel)
    compiled.module = None  # what __del__ reads of a kernel never loaded
    compiled.src = SimpleNamespace(fn=scale, constants={(3,): 256})
    compiled.metadata = SimpleNamespace(num_warps=8, num_stages=3, num_ctas=1)
    x, y = torch.ones(1000), torch.empty(1000)
    args = (x, y, 1000, 256) if with_constexprs else (x, y, 1000)
    with triton_launches({}) as data:
        compiled[(4, 1, 1)](*args)
        compiled[(4, 1, 1)](*args)
    assert launched == [((4, 1, 1), args)] * 2  # the launch itself still happens
    assert CompiledKernel.__getitem__ is not None and data["total"] == 2
    (entry,) = data["launches"]
    assert entry["kernel"] == "scale" and entry["count"] == 2 and entry["precompiled"] is True
    assert entry["grid"] == [4, 1, 1]
    assert entry["args"]["x_ptr"]["kind"] == "tensor" and entry["args"]["n"] == {"kind": "int", "value": 1000}
    assert entry["constexprs"] == {"BLOCK": 256}
    assert entry["options"] == {"num_warps": 8, "num_stages": 3, "num_ctas": 1}


def test_the_compiled_launcher_is_restored_afterwards(monkeypatch: pytest.MonkeyPatch) -> None:
    sentinel = lambda self, grid: None  # noqa: E731
    monkeypatch.setattr(CompiledKernel, "__getitem__", sentinel)
    with triton_launches({}):
        assert CompiledKernel.__getitem__ is not sentinel
    assert CompiledKernel.__getitem__ is sentinel
