"""Prelude for CPU-only children: let code written for ``device="cuda"`` run on the CPU.

KernelBench and GPU MODE code creates tensors with ``device="cuda"``, calls ``.cuda()`` and
``torch.cuda.synchronize()``. Under the Triton/Pallas interpreters the kernels themselves run on
CPU tensors, so these requests are redirected to the CPU. Every evidence item produced under the
shim says so (``config.cuda_shim``). ``torch.cuda.is_available()`` stays False and ``x.is_cuda``
stays honest: code that insists on a GPU fails, and the reviewer reports that as unverified.
"""

from __future__ import annotations

import functools
from typing import Any

_FACTORIES = (
    "empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "arange", "linspace",
    "logspace", "tensor", "as_tensor", "empty_strided", "eye", "empty_like", "zeros_like",
    "ones_like", "full_like", "rand_like", "randn_like", "randint_like", "normal",
)


def _is_cuda(dev: Any) -> bool:
    import torch

    if isinstance(dev, torch.device):
        return dev.type == "cuda"
    if isinstance(dev, int) and not isinstance(dev, bool):
        return True
    return isinstance(dev, str) and dev.split(":")[0] == "cuda"


def _fix_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    if "device" in kwargs and _is_cuda(kwargs["device"]):
        kwargs = dict(kwargs, device="cpu")
    return kwargs


def install(config: dict[str, Any]) -> None:
    if not config.get("cuda_shim"):
        return
    import torch

    def factory(fn):
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **_fix_kwargs(kwargs))

        return wrapper

    for name in _FACTORIES:
        if hasattr(torch, name):
            setattr(torch, name, factory(getattr(torch, name)))

    real_generator = torch.Generator

    class Generator(real_generator):  # type: ignore[misc, valid-type]
        def __new__(cls, device: Any = "cpu") -> Any:
            return real_generator("cpu" if _is_cuda(device) else device)

    torch.Generator = Generator  # type: ignore[misc]

    def _fix_to_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args = tuple("cpu" if i == 0 and _is_cuda(a) else a for i, a in enumerate(args))
        return args, _fix_kwargs(kwargs)

    tensor_to = torch.Tensor.to

    def to(self: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        args, kwargs = _fix_to_args(args, kwargs)
        return tensor_to(self, *args, **kwargs)

    torch.Tensor.to = to  # type: ignore[method-assign]
    torch.Tensor.cuda = lambda self, *a, **k: self  # type: ignore[method-assign]

    module_to = torch.nn.Module.to

    def module_to_cpu(self: torch.nn.Module, *args: Any, **kwargs: Any) -> torch.nn.Module:
        args, kwargs = _fix_to_args(args, kwargs)
        return module_to(self, *args, **kwargs)

    torch.nn.Module.to = module_to_cpu  # type: ignore[method-assign]
    torch.nn.Module.cuda = lambda self, *a, **k: self  # type: ignore[method-assign]
    torch.cuda.synchronize = lambda *a, **k: None  # type: ignore[assignment]
    torch.cuda.empty_cache = lambda *a, **k: None  # type: ignore[assignment]
