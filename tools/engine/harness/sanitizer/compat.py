"""The Triton interpreter internals the sanitizer patches, and the check that they are still there.

The sanitizer hooks private parts of ``triton.runtime.interpreter``; they were tested with every
minor release from Triton 3.4 to 3.8 (``TESTED_TRITON``; CI runs the oldest and the newest, see
docs/triton-sanitizer.md for what differs between them and the adapters that cover it). Before
anything is patched, :func:`require_compatible` checks the version, every patched function's
parameter names, and a few facts about the interpreter's behaviour the hooks rely on (read from its
source). If anything moved it raises :class:`reviewer.core.errors.SanitizerIncompatible`: the memcheck evidence is then
``unverified`` ("sanitizer incompatible with triton X.Y"), never a silent pass.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

from reviewer.core.errors import SanitizerIncompatible

PINNED_TRITON = "3.8.0"  # the dev pin (pyproject.toml), named in the install hint
# major.minor releases the hooks were tested with; any patch release of them is accepted
TESTED_TRITON = ("3.4", "3.5", "3.6", "3.7", "3.8")

BUILDER_HOOKS: dict[str, tuple[str, ...]] = {
    "create_load": ("self", "ptr", "_0", "_1", "is_volatile"),
    "create_store": ("self", "ptr", "val", "_0", "_1"),
    "create_masked_load": ("self", "ptrs", "mask", "other", "cache_modifier", "eviction_policy", "is_volatile"),
    "create_masked_store": ("self", "ptrs", "value", "mask", "cache_modifier", "eviction_policy"),
    "create_atomic_rmw": ("self", "rmwOp", "ptr", "val", "mask", "sem", "scope"),
    "create_atomic_cas": ("self", "ptr", "cmp", "val", "sem", "scope"),
    "create_assert": ("self", "condition", "message"),
    "binary_op": ("self", "lhs", "rhs", "op"),
    "create_idiv": ("self", "lhs", "rhs"),
    "create_addptr": ("self", "ptr", "offset"),
    "create_splat": ("self", "ret_ty", "arg"),
    "create_broadcast": ("self", "arg", "shape"),
    "create_expand_dims": ("self", "arg", "axis"),
    "create_reshape": ("self", "arg", "shape", "allow_reorder"),
    "create_trans": ("self", "arg", "perm"),
    "create_select": ("self", "cond", "lhs", "rhs"),
    "cast_impl": ("self", "src", "dst_type"),
    "create_bitcast": ("self", "src", "dst_type"),
    "create_ptr_to_int": ("self", "src", "dst_type"),
    "create_int_to_ptr": ("self", "src", "dst_type"),
}
EXECUTOR_HOOKS: dict[str, tuple[str, ...]] = {
    "_init_args_hst": ("self", "args_dev", "kwargs"),
    "__call__": ("self", "args_dev", "kwargs"),
}
# (function, text its source must contain, what the hooks rely on)
SOURCE_FACTS: tuple[tuple[str, str, str], ...] = (
    ("InterpreterBuilder.create_load", "self.create_masked_load(", "unmasked loads go through create_masked_load"),
    ("InterpreterBuilder.create_store", "self.create_masked_store(", "unmasked stores go through create_masked_store"),
    ("InterpreterBuilder.create_masked_load", "_interpreter.load(", "masked loads dereference raw addresses"),
    ("InterpreterBuilder.create_masked_store", "_interpreter.store(", "masked stores dereference raw addresses"),
    ("GridExecutor.__call__", "self._init_args_hst(", "every launch copies its arguments via _init_args_hst"),
    ("GridExecutor.__call__", "interpreter_builder.set_grid_idx(", "program ids live on interpreter_builder"),
    ("TritonSemantic.device_assert", "options.debug", "device_assert is gated on builder.options.debug"),
    ("TritonSemantic.device_assert", "create_assert(", "device_assert lowers to builder.create_assert"),
)
OPTION_FIELDS = ("debug", "sanitize_overflow")
HANDLE_FIELDS = ("data", "dtype", "attr")


def _params(fn: Any) -> tuple[str, ...]:
    return tuple(inspect.signature(fn).parameters)


def _missing_fields(what: str, obj: Any, fields: tuple[str, ...]) -> list[str]:
    if obj is None or not dataclasses.is_dataclass(obj):
        return [f"{what} is not a dataclass"]
    names = {f.name for f in dataclasses.fields(obj)}
    return [f"{what} has no field {f!r}" for f in fields if f not in names]


def tested(version: str) -> bool:
    """Whether ``version`` is a release (any patch, local build tags included) of a tested minor."""
    return any(version == t or version.startswith(t + ".") for t in TESTED_TRITON)


def problems(interp: Any = None, semantic_cls: Any = None, version: str | None = None) -> list[str]:
    """Everything that differs from what the hooks expect (empty when compatible)."""
    import triton

    if interp is None:
        from triton.runtime import interpreter as interp
    if semantic_cls is None:
        from triton.language.semantic import TritonSemantic as semantic_cls
    version = version if version is not None else triton.__version__
    found: list[str] = []
    if not tested(version):
        found.append(f"hooks are written and tested for triton {TESTED_TRITON[0]} to {TESTED_TRITON[-1]}, "
                     f"found {version}")
    owners = {"InterpreterBuilder": getattr(interp, "InterpreterBuilder", None),
              "GridExecutor": getattr(interp, "GridExecutor", None), "TritonSemantic": semantic_cls}
    for owner, table in (("InterpreterBuilder", BUILDER_HOOKS), ("GridExecutor", EXECUTOR_HOOKS)):
        cls = owners[owner]
        if cls is None:
            found.append(f"triton.runtime.interpreter.{owner} is gone")
            continue
        for name, want in table.items():
            fn = cls.__dict__.get(name)
            if fn is None or not callable(fn):
                found.append(f"{owner}.{name} is gone")
                continue
            try:
                got = _params(fn)
            except (TypeError, ValueError):
                found.append(f"{owner}.{name} has no inspectable signature")
                continue
            if got != want:
                found.append(f"{owner}.{name}{got} != expected {want}")
    for qual, needle, why in SOURCE_FACTS:
        owner, name = qual.split(".")
        fn = getattr(owners.get(owner), name, None)
        try:
            src = inspect.getsource(fn) if fn is not None else ""
        except (OSError, TypeError):
            src = ""
        if needle not in src:
            found.append(f"{qual} no longer contains {needle!r} ({why})")
    opts = getattr(getattr(interp, "interpreter_builder", None), "options", None)
    found += _missing_fields("interpreter_builder.options (InterpreterOptions)", opts, OPTION_FIELDS)
    found += _missing_fields("TensorHandle", getattr(interp, "TensorHandle", None), HANDLE_FIELDS)
    return found


def require_compatible(**kwargs: Any) -> None:
    """Raise :class:`SanitizerIncompatible` naming every moved internal; return if all are in place."""
    import triton

    found = problems(**kwargs)
    if found:
        version = kwargs.get("version") or triton.__version__
        short = ".".join(str(version).split(".")[:2])
        hint = f"install triton {TESTED_TRITON[0]} to {TESTED_TRITON[-1]} (pyproject.toml pins {PINNED_TRITON})"
        raise SanitizerIncompatible(f"sanitizer incompatible with triton {short} ({version}): " + "; ".join(found),
                                    hint=hint)
