"""A host-side TensorDescriptor argument is described with its base (tools/engine/harness/instruments/
triton_launches.py), rebuilt for the resources compile (tools/engine/compilers/triton_child.py), and its base
counts as a tensor the launch touched: the output a kernel writes through a descriptor is not a dead launch."""

from __future__ import annotations

import torch
from triton.tools.tensor_descriptor import TensorDescriptor

from tools.engine.compilers.triton_child import _argument
from tools.engine.harness.instruments.triton_launches import _describe_arg, launch_tensors


def test_descriptor_is_described_rebuilt_and_its_base_touched() -> None:
    y = torch.empty(64, 128, dtype=torch.float16)
    desc = TensorDescriptor.from_tensor(y, [32, 64])
    d = _describe_arg(desc)
    assert d["kind"] == "tensor_descriptor" and d["base"]["kind"] == "tensor" and d["base"]["dtype"] == "float16"
    assert (d["shape"], d["strides"], d["block_shape"]) == ([64, 128], [128, 1], [32, 64])
    rebuilt = _argument(d)
    assert isinstance(rebuilt, TensorDescriptor) and rebuilt.base.dtype == torch.float16
    assert list(rebuilt.block_shape) == [32, 64] and rebuilt.padding == "zero"
    assert launch_tensors(desc)[0] is y and launch_tensors((y, 3)) == [y] and launch_tensors(1.5) == []
