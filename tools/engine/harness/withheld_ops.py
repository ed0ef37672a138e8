"""The reference's core operators withheld from a submission child (the integrity probe's last run).

The integrity probe traces the torch operators forward calls in the calling thread (instruments/torch_ops.py).
Work done elsewhere is not in that trace: on another thread, inside a grid function or hook that runs
during a kernel launch, from code that passes itself off as the harness, or after the trace was tampered
with. ``withhold`` registers, with the dispatcher itself, a kernel on the backend keys of dense, MKLDNN,
sparse, nested and quantized tensors (``_KEYS``) for each named operator and every operator of the named
families (every overload, and the in-place twin ``name_``) that answers with poison instead of the result:
NaN for floating and complex dtypes, -1 for signed integers, the largest value for unsigned ones, True for
booleans, shaped by the operator's meta kernel (an operator without one raises). Every caller in the
process gets that answer, whatever thread or frame it calls from. If forward's output then moves, it
depends on an operator the trace never saw it call, and the parent judges that from the outputs alone.

The child serves nothing after this request: the parent restarts the role.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import torch
from torch.utils._pytree import tree_map

from tools.engine.harness.instruments.torch_ops import base_name

# Rationale: operators the harness itself and the Triton interpreter use around a call (moving inputs and
# outputs, filling poisoned allocations); withholding them would break the harness, not the submission
_NEVER = frozenset({"fill", "fill_", "zero", "zero_", "copy", "copy_", "_to_copy", "clone", "empty", "empty_like",
                    "empty_strided", "full", "full_like", "detach", "alias", "view", "_copy_from",
                    "_copy_from_and_resize", "resize_", "set_", "lift_fresh"})
# Rationale: every backend key a CPU or CUDA tensor's operator can reach, not only the dense ones: softmax
# of an MKLDNN or a sparse tensor runs on its own key (a red-team submission computed on .to_mkldnn())
_KEYS = ("CPU", "CUDA", "MkldnnCPU", "SparseCPU", "SparseCUDA", "SparseCsrCPU", "SparseCsrCUDA", "NestedTensorCPU",
         "NestedTensorCUDA", "QuantizedCPU", "QuantizedCUDA")
# Rationale: the registrations live as long as the child. They are made on the dispatcher's own library
# handle, not a torch.library.Library: that registers a weakref.finalize, and weakref.finalize._registry
# hands any code the Library to ``_destroy()`` (a red-team submission undid the withholding that way).
_LIBRARIES: list[Any] = []


def _poison(dtype: torch.dtype) -> Any:
    if dtype.is_floating_point or dtype.is_complex:
        return float("nan")
    if dtype == torch.bool:
        return True
    if dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
        return torch.iinfo(dtype).max
    return -1


def poisoned(t: torch.Tensor) -> torch.Tensor:
    """``t`` filled, in place, with its dtype's poison (NaN, -1, the largest unsigned value, True)."""
    with torch.no_grad():
        return t.fill_(_poison(t.dtype))


def _meta(t: torch.Tensor) -> torch.Tensor:
    try:
        return t.to("meta")
    except (NotImplementedError, RuntimeError):  # a layout with no meta form (MKLDNN, sparse): its shape
        return torch.empty(t.shape, dtype=t.dtype, device="meta")


def _answer(overload: Any) -> Any:
    schema = overload._schema
    written = [i for i, a in enumerate(schema.arguments) if a.alias_info is not None and a.alias_info.is_write]

    def kernel(*args: Any, **kwargs: Any) -> Any:
        if written:  # in place or out=: the tensors it would write hold poison, and are returned
            bound = [args[i] if i < len(args) else kwargs.get(schema.arguments[i].name) for i in written]
            outs = [poisoned(t) for t in bound if isinstance(t, torch.Tensor)]
            return outs[0] if len(outs) == 1 else tuple(outs)
        device = next((a.device for a in torch.utils._pytree.tree_leaves((args, kwargs))
                       if isinstance(a, torch.Tensor)), torch.device("cpu"))
        meta_args, meta_kwargs = tree_map(lambda a: _meta(a) if isinstance(a, torch.Tensor) else a, (args, kwargs))
        try:
            shaped = overload(*meta_args, **meta_kwargs)
        except Exception as exc:  # noqa: BLE001 - no meta kernel: the operator answers with an error instead
            raise RuntimeError(f"{schema.name} is withheld by the integrity probe") from exc
        return tree_map(lambda m: poisoned(torch.empty_strided(m.shape, m.stride(), dtype=m.dtype, device=device))
                        if isinstance(m, torch.Tensor) else m, shaped)

    return kernel


def family_members(families: Sequence[str]) -> list[str]:
    """Every aten operator of the operator families ``families`` (``matmul``: mm, addmm, bmm, matmul, linear,
    einsum, ...; instruments/torch_ops.py ``base_name``): the same work reached through another operator."""
    wanted = set(families)
    return sorted({n.split(".")[0] for n in torch._C._dispatch_get_all_op_names()
                   if n.startswith("aten::") and base_name(n) in wanted})


def withhold(names: Sequence[str], families: Sequence[str] = ()) -> list[str]:
    """Withhold the aten operators ``names`` (``aten::_softmax``; their in-place twins too) and every operator
    of ``families`` in this process; the qualified overloads actually withheld, sorted. Names outside
    ``aten`` or in ``_NEVER`` are skipped."""
    lib = torch._C._dispatch_library("IMPL", "aten", "", __file__, 0)
    _LIBRARIES.append(lib)
    done: set[str] = set()
    stems = set()
    for name in [*names, *family_members(families)]:
        ns, _, stem = name.partition("::")
        if ns == "aten" and stem and stem not in _NEVER:
            stems.update({stem, stem + "_"} if not stem.endswith("_") else {stem})
    for stem in sorted(stems):
        packet = getattr(torch.ops.aten, stem, None)
        if packet is None:
            continue
        for overload_name in packet.overloads():
            overload = getattr(packet, overload_name)
            qualified = stem if overload_name == "default" else f"{stem}.{overload_name}"
            try:
                composite = torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{qualified}",
                                                                           "CompositeImplicitAutograd")
            except RuntimeError:  # an overload Python knows that the dispatcher does not (einsum.sublist)
                continue
            if composite:
                # it decomposes into operators that are withheld themselves; a backend kernel beside the
                # composite one is refused by the dispatcher for the keys that map to AutogradOther
                continue
            kernel = _answer(overload)
            for key in _KEYS:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # "overriding a previously registered kernel"
                        lib.impl(qualified, key, kernel, False)
                except Exception:  # noqa: BLE001, S112 - an overload with no kernel for this key: nothing to withhold
                    continue
                done.add(f"aten::{qualified}")
    return sorted(done)
