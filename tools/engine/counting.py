"""Child side of the roofline: the work one reference call does (runs inside the reference child).

FLOPs come from ``torch.utils.flop_counter.FlopCounterMode``, which counts matrix products,
convolutions and attention (elementwise ops and reductions count zero, so for them the bound is the
memory traffic alone). The minimum traffic is every external tensor the call reads, once (its inputs
and the parameters and buffers of every module it runs), plus every output, once: a dispatch mode
records which external storages the ops actually read (arguments a schema marks as written, such as
``out=``, are not reads), so a preallocated output buffer passed in is not counted as input.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import torch
import torch.utils.flop_counter as flop_counter
from torch.utils._python_dispatch import TorchDispatchMode


def _import_dynamo_only_when_loaded(mode_class: type) -> None:
    """Let ``mode_class.__torch_dispatch__`` run without importing ``torch._dynamo`` while nothing has.

    Rationale: torch wraps every dispatch mode's ``__torch_dispatch__`` in ``dynamo.disable``, which
    imports torch._dynamo at its first call: 1.1 s of the roofline's one reference request, every review
    (issue 34). That wrapper matters only while dynamo can trace, which needs torch._dynamo loaded; until
    then the function runs as it is, and from then on the wrapper takes its usual form (built once, as
    torch would). The wrapper reads its form from the function's ``__dynamo_disable`` attribute
    (torch/_compile.py); a torch without that arrangement is left as it is."""
    raw = getattr(mode_class.__dict__.get("__torch_dispatch__"), "__wrapped__", None)
    if raw is None or getattr(raw, "__dynamo_disable", None) is not None:
        return

    def until_dynamo_loads(*args: Any, **kwargs: Any) -> Any:
        if "torch._dynamo" not in sys.modules:
            return raw(*args, **kwargs)
        disabled = sys.modules["torch._dynamo"].disable(raw, True, wrapping=False)
        setattr(raw, "__dynamo_disable", disabled)
        return disabled(*args, **kwargs)

    setattr(raw, "__dynamo_disable", until_dynamo_loads)


if hasattr(flop_counter, "_FlopCounterMode"):
    _import_dynamo_only_when_loaded(flop_counter._FlopCounterMode)


def _tensors(value: Any) -> list[torch.Tensor]:
    from torch.utils._pytree import tree_leaves

    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _key(t: torch.Tensor) -> int | None:
    try:
        return int(t.untyped_storage().data_ptr())
    except (RuntimeError, NotImplementedError, TypeError):
        return None


def _nbytes(t: torch.Tensor) -> int:
    return int(t.numel()) * int(t.element_size())


class _Reads(TorchDispatchMode):
    def __init__(self, external: dict[int, int]) -> None:
        super().__init__()
        self.external = external
        self.read: dict[int, int] = {}

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # as the operator recorder's modes (harness/instruments/torch_ops.py): no dynamo.disable wrapper,
        # whose first call imports torch._dynamo; dynamo skips frames while a dispatch mode is active
        return False

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        schema = getattr(func, "_schema", None)
        params = list(schema.arguments) if schema is not None else []
        bound: list[tuple[Any, Any]] = list(zip(params, args))
        by_name = {p.name: p for p in params}
        bound += [(by_name.get(k), v) for k, v in kwargs.items()]
        for param, value in bound:
            written = param is not None and param.alias_info is not None and param.alias_info.is_write
            if written:
                continue
            for t in _tensors(value):
                key = _key(t)
                if key is not None and key in self.external:
                    self.read[key] = max(self.read.get(key, 0), min(_nbytes(t), self.external[key]))
        return func(*args, **kwargs)


class WorkCounter:
    """Counts flops and bytes during one reference call; its totals become a ``tools.engine.speed_of_light.Work``."""

    def __init__(self) -> None:
        self.external: dict[int, int] = {}
        self.flops: flop_counter.FlopCounterMode | None = None
        self.reads: _Reads | None = None
        self.dtypes: list[str] = []

    def add_external(self, t: torch.Tensor) -> None:
        key = _key(t)
        if key is not None:
            self.external[key] = max(self.external.get(key, 0), int(t.untyped_storage().nbytes()))

    def finish(self, outputs: Any) -> dict[str, Any]:
        assert self.flops is not None and self.reads is not None
        out_storages: dict[int, int] = {}
        for t in _tensors(outputs):
            key = _key(t)
            if key is not None:
                out_storages[key] = max(out_storages.get(key, 0), _nbytes(t))
        counts = self.flops.get_flop_counts().get("Global", {})
        return {
            "flops": int(self.flops.get_total_flops()),
            "flops_by_op": {str(k): int(v) for k, v in counts.items()},
            "read_bytes": int(sum(self.reads.read.values())),
            "write_bytes": int(sum(out_storages.values())),
            "external_bytes": int(sum(self.external.values())),
            "input_dtypes": self.dtypes,
            "output_dtypes": sorted({str(t.dtype).removeprefix("torch.") for t in _tensors(outputs)}),
            "counter": f"torch.utils.flop_counter.FlopCounterMode (torch {torch.__version__})",
        }


@contextlib.contextmanager
def count_work(inputs: Any) -> Iterator[WorkCounter]:
    """Count the FLOPs and external reads of the code run inside; ``work.finish(outputs)`` reports."""
    work = WorkCounter()
    for t in _tensors(inputs):
        work.add_external(t)
        name = str(t.dtype).removeprefix("torch.")
        if name not in work.dtypes:
            work.dtypes.append(name)

    def pre_hook(module: torch.nn.Module, args: Any) -> None:
        for t in [*module.parameters(recurse=False), *module.buffers(recurse=False)]:
            work.add_external(t)

    handle = torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
    try:
        with flop_counter.FlopCounterMode(display=False) as flops, _Reads(work.external) as reads:
            work.flops, work.reads = flops, reads
            yield work
    finally:
        handle.remove()
