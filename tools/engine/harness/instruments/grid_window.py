"""``grid_window``: run only a window of a large grid's programs and record what each one stores.

A kernel wrong only past 65,536 programs in a grid dimension (``program_id(0) % 65536``, an int16
program index, ``if pid >= 65536: return``) needs a launch that large to show it, and 65,537
programs take a minute under the interpreter (~1 ms each). This instrument lets the submission
launch the full grid but, for a grid dimension over ``threshold`` programs, executes only the
programs whose index in it lies in ``[0, width)`` (heads), ``[threshold, threshold + width)`` and
the last ``width`` (tails); in the other dimensions only index 0. A launch with no dimension past
``threshold`` runs no program at all (only its grid is recorded: a persistent kernel's 65,537 rows
in 132 programs would take minutes here, and only the grid matters). Every executed program's
masked stores are recorded as a footprint: the number of addresses and a digest of the sorted set.

A correct kernel's tail programs store elements of their own; a tail program whose footprint equals
a head program's (its index wrapped), or that stores nothing while every head stores, is the
defect. The parent judges (tools/generality/large_grid.py); the outputs of a windowed call are
not the answer (most programs did not run) and are never compared. TRITON_INTERPRET=1 only.

Options (``payload["instrument_options"]["grid_window"]``): ``threshold`` (default 65536),
``width`` (default 2). Like every instrument this is a claim from the child.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from typing import Any

from tools.engine.harness.instruments import instrument

_MAX_LAUNCHES = 16


def in_window(idx: tuple[int, ...], dims: tuple[int, ...], threshold: int, width: int) -> bool:
    """Whether program ``idx`` of a grid ``dims`` runs (see the module docstring)."""
    if not any(d > threshold for d in dims):
        return True
    for i, d in zip(idx, dims):
        if d > threshold:
            if not (i < width or threshold <= i < threshold + width or i >= d - width):
                return False
        elif i != 0:
            return False
    return True


@instrument("grid_window")
@contextlib.contextmanager
def grid_window(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    opts = (payload.get("instrument_options") or {}).get("grid_window") or {}
    threshold, width = int(opts.get("threshold", 65536)), int(opts.get("width", 2))
    data: dict[str, Any] = {"threshold": threshold, "width": width, "launches": [], "truncated": False}
    try:
        import numpy as np
        from triton.runtime import interpreter
    except ImportError:
        data["error"] = "triton is not importable"
        yield data
        return
    executor_cls, builder_cls = interpreter.GridExecutor, interpreter.InterpreterBuilder
    original_call, original_dim = executor_cls.__call__, builder_cls.set_grid_dim
    original_store = builder_cls.create_masked_store
    state: dict[str, Any] = {"executor": None, "record": None, "pid": None}

    def set_grid_dim(self: Any, nx: int, ny: int, nz: int) -> Any:
        # Rationale: called right before the program loop, after the executor read the kernel's
        # signature: the moment to put the window in front of the kernel function.
        out = original_dim(self, nx, ny, nz)
        ex, rec = state["executor"], state["record"]
        if ex is not None and rec is not None and not rec.get("armed"):
            rec["armed"], rec["grid"] = True, [int(nx), int(ny), int(nz)]
            fn = ex.fn

            large = any(d > threshold for d in rec["grid"])

            def windowed(**args: Any) -> Any:
                idx = tuple(int(i) for i in interpreter.interpreter_builder.grid_idx)
                if not large or not in_window(idx, tuple(rec["grid"]), threshold, width):
                    rec["skipped"] += 1
                    return None
                state["pid"] = idx
                rec["programs"].setdefault(idx, set())
                try:
                    return fn(**args)
                finally:
                    state["pid"] = None

            ex.fn = windowed
            rec["restore"] = fn
        return out

    def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any) -> Any:
        rec, pid = state["record"], state["pid"]
        if rec is not None and pid is not None:
            try:
                addrs = np.asarray(ptrs.data).reshape(-1)[np.asarray(mask.data, dtype=bool).reshape(-1)]
                rec["programs"][pid].update(int(a) for a in addrs.tolist())
            except Exception as exc:  # noqa: BLE001 - observing must never break the store
                rec["errors"].append(repr(exc)[:200])
        return original_store(self, ptrs, value, mask, *rest)

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        rec: dict[str, Any] = {"kernel": getattr(self.fn, "__name__", "kernel"), "grid": None, "skipped": 0,
                               "programs": {}, "errors": []}
        state["executor"], state["record"] = self, rec
        try:
            return original_call(self, *args, **kwargs)
        finally:
            if "restore" in rec:
                self.fn = rec["restore"]
            state["executor"] = state["record"] = None
            if len(data["launches"]) < _MAX_LAUNCHES:
                data["launches"].append(_summary(rec))
            else:
                data["truncated"] = True

    executor_cls.__call__ = call
    builder_cls.set_grid_dim = set_grid_dim
    builder_cls.create_masked_store = create_masked_store
    try:
        yield data
    finally:
        executor_cls.__call__ = original_call
        builder_cls.set_grid_dim = original_dim
        builder_cls.create_masked_store = original_store


def _summary(rec: dict[str, Any]) -> dict[str, Any]:
    programs = []
    for idx, addrs in sorted(rec["programs"].items()):
        ordered = sorted(addrs)
        digest = hashlib.sha256(",".join(map(str, ordered)).encode()).hexdigest()[:16] if ordered else ""
        programs.append({"pid": list(idx), "stores": len(ordered), "digest": digest,
                         "first": ordered[0] if ordered else None, "last": ordered[-1] if ordered else None})
    return {"kernel": rec["kernel"], "grid": rec["grid"], "ran": len(programs), "skipped": rec["skipped"],
            "programs": programs, "errors": rec["errors"][:3]}
