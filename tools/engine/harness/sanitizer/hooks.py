"""The patches: bounds checks before every interpreter memory access, ``device_assert`` evaluated,
int32 wrap-around tracked from the arithmetic that wraps to the access that uses it.

Two facts ride on each interpreter ``TensorHandle.attr`` (a dict the interpreter leaves alone):

* ``REGION``: which argument storage a pointer tensor was derived from (set at ``create_addptr``
  from the base pointer's address, carried through splat/broadcast/expand/reshape/trans/select/
  bitcast). An access is checked against *that* storage, so a tail that overruns ``x`` into the
  neighbouring allocation of ``y`` is still caught. Pointers whose provenance was lost (ptr->int->
  ptr casts, pointers loaded from memory) are checked against every argument storage instead.
* ``WRAP``: which lanes of an integer tensor hold a value whose signed (<64-bit) add/sub/mul
  wrapped, with ``WRAP_SITE`` naming the first such operation. It flows through integer arithmetic,
  casts and shape ops into ``create_addptr``; an executed (mask-true) access through a wrapped lane
  is an int32 index overflow.

An out-of-bounds lane is taken out of the access before it happens (its mask bit cleared; an
atomic CAS lane is pointed at a private scratch word), so nothing outside the arguments is read or
written, the process survives, and the call runs to the end so every violation is counted.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from tools.engine.harness import interpreter_guard
from tools.engine.harness.sanitizer.report import Region, Report, user_location

REGION = "kreview.region"
WRAP = "kreview.wrap"
WRAP_SITE = "kreview.wrap_site"
_ARITH = {np.add: "add", np.subtract: "sub", np.multiply: "mul"}


def _itemsize(ptrs: Any) -> int:
    return max(1, ptrs.get_element_ty().primitive_bitwidth // 8)


def _mask_data(mask: Any) -> np.ndarray | None:
    if mask is None:
        return None
    return mask if isinstance(mask, np.ndarray) else np.asarray(mask.data)


def _full(mask: Any, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(np.asarray(mask, dtype=bool), shape)


def _wrap_of(h: Any) -> np.ndarray | None:
    attr = getattr(h, "attr", None)
    return None if not attr else attr.get(WRAP)


def _any_of(shape: tuple[int, ...], *masks: np.ndarray | None) -> np.ndarray | None:
    out = None
    for m in masks:
        if m is not None:
            m = _full(m, shape)
            out = m if out is None else (out | m)
    return out


def _set_wrap(out: Any, wrap: np.ndarray | None, *sources: Any) -> None:
    if wrap is None or not wrap.any():
        return
    out.attr[WRAP] = np.ascontiguousarray(wrap)
    for s in sources:
        site = getattr(s, "attr", {}).get(WRAP_SITE) if s is not None else None
        if site is not None:
            out.attr[WRAP_SITE] = site
            return


def _carry_region(out: Any, *sources: Any) -> None:
    regions = {getattr(s, "attr", {}).get(REGION) for s in sources}
    if len(regions) == 1 and None not in regions:
        out.attr[REGION] = regions.pop()


def _carry_address_region(out: Any, *sources: Any) -> None:
    """Integer arithmetic on an address (a pointer cast to an integer, plus an offset) keeps the
    storage when exactly one operand has one; two different storages (a pointer difference) give none."""
    regions = {r for s in sources if (r := getattr(s, "attr", {}).get(REGION)) is not None}
    if len(regions) == 1:
        out.attr[REGION] = regions.pop()


class Sanitizer:
    """Builds the replacement functions; ``install`` patches, ``uninstall`` restores."""

    def __init__(self, interp: Any, report: Report) -> None:
        self.interp = interp
        self.report = report
        self.unmasked = False
        self.stored: Any = None
        self._saved: list[tuple[Any, str, Any, Any]] = []
        self._options: Any = None
        # its regions are the arguments' own storages and it takes every out-of-bounds access out
        # itself: no guard zones while it is installed
        self._unguarded = contextlib.ExitStack()

    # -- install -----------------------------------------------------------------------------
    def install(self) -> None:
        self._unguarded.enter_context(interpreter_guard.suspended())
        ib, ge = self.interp.InterpreterBuilder, self.interp.GridExecutor
        table: dict[tuple[Any, str], Callable[[Callable[..., Any]], Callable[..., Any]]] = {
            (ib, "create_load"): self._load, (ib, "create_store"): self._store,
            (ib, "create_masked_load"): self._masked_load, (ib, "create_masked_store"): self._masked_store,
            (ib, "create_atomic_rmw"): self._atomic_rmw, (ib, "create_atomic_cas"): self._atomic_cas,
            (ib, "create_assert"): self._assert, (ib, "binary_op"): self._binary_op,
            (ib, "create_idiv"): self._elementwise2, (ib, "create_addptr"): self._addptr,
            (ib, "create_splat"): self._splat, (ib, "create_broadcast"): self._shape_op(lambda w, a: np.broadcast_to(w, a[0])),
            (ib, "create_expand_dims"): self._shape_op(lambda w, a: np.expand_dims(w, a[0])),
            (ib, "create_reshape"): self._shape_op(lambda w, a: w.reshape(a[0])),
            (ib, "create_trans"): self._shape_op(lambda w, a: np.transpose(w, a[0])),
            (ib, "create_select"): self._select, (ib, "cast_impl"): self._cast, (ib, "create_bitcast"): self._cast,
            (ib, "create_ptr_to_int"): self._address_cast, (ib, "create_int_to_ptr"): self._address_cast,
            (ge, "_init_args_hst"): self._init_args, (ge, "__call__"): self._launch,
        }
        # tensor descriptors; block pointers (tl.make_block_ptr) have their own handle up to Triton 3.7
        for handle in ("TensorDescHandle", "BlockPointerHandle"):
            cls = getattr(self.interp, handle, None)
            if cls is not None and "materialize_pointers" in cls.__dict__:
                table[(cls, "materialize_pointers")] = self._descriptor_pointers
        try:
            for (owner, name), make in table.items():
                original = owner.__dict__[name]
                wrapper = make(original)
                self._saved.append((owner, name, original, wrapper))
                setattr(owner, name, wrapper)
            builder = self.interp.interpreter_builder
            self._options = builder.options
            # Rationale: debug=True makes tl.device_assert reach create_assert; Triton's own
            # sanitize_overflow would assert on *every* wrapping int op (hashes included, masked
            # lanes included), so it is off and WRAP tracking reports only wraps that reach an access.
            builder.options = dataclasses.replace(self._options, debug=True, sanitize_overflow=False)
        except BaseException:
            self.uninstall()
            raise
        self.report.data["installed"] = True

    def uninstall(self) -> None:
        """Restore everything; note any hook that code running in the call replaced meanwhile."""
        tampered = self.report.data.setdefault("tampered", [])
        while self._saved:
            owner, name, original, wrapper = self._saved.pop()
            if owner.__dict__.get(name) is not wrapper:
                tampered.append(f"{owner.__name__}.{name}")
            setattr(owner, name, original)
        if self._options is not None:
            if not getattr(self.interp.interpreter_builder.options, "debug", False):
                tampered.append("interpreter_builder.options")
            self.interp.interpreter_builder.options = self._options
            self._options = None
        self._unguarded.close()

    def _guard(self, where: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - a sanitizer bug must not change the kernel's behaviour
            self.report.internal_error(where, exc)
            return None

    def _pid(self) -> None:
        idx = getattr(self.interp.interpreter_builder, "grid_idx", None)
        self.report.pid = tuple(int(i) for i in idx) if idx else (0, 0, 0)

    # -- launches ----------------------------------------------------------------------------
    def _init_args(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def _init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
            args_hst, kwargs_hst = original(self, args_dev, kwargs)
            named = list(zip(self.arg_names, args_hst)) + list(kwargs_hst.items())
            san._guard("launch", lambda: san.report.begin_launch(getattr(self.fn, "__name__", "?"), _regions(named)))
            return args_hst, kwargs_hst

        return _init_args_hst

    def _launch(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def __call__(self: Any, *args_dev: Any, **kwargs: Any) -> Any:
            try:
                return original(self, *args_dev, **kwargs)
            except BaseException as exc:
                name = getattr(self.fn, "__name__", "?")
                san._guard("error", lambda e=exc: san.report.interpreter_error(name, e))
                raise
            finally:
                grid = getattr(san.interp.interpreter_builder, "grid_dim", None)
                san._guard("launch-end", lambda: san.report.end_launch(grid))

        return __call__

    # -- memory accesses ---------------------------------------------------------------------
    def _load(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_load(self: Any, ptr: Any, _0: Any, _1: Any, is_volatile: Any) -> Any:
            san.unmasked = True
            try:
                return original(self, ptr, _0, _1, is_volatile)
            finally:
                san.unmasked = False

        return create_load

    def _store(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_store(self: Any, ptr: Any, val: Any, _0: Any, _1: Any) -> Any:
            san.unmasked = True
            try:
                return original(self, ptr, val, _0, _1)
            finally:
                san.unmasked = False

        return create_store

    def _masked_load(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, cache_modifier: Any,
                               eviction_policy: Any, is_volatile: Any) -> Any:
            mask = san.checked_mask("load", ptrs, mask)
            return original(self, ptrs, mask, other, cache_modifier, eviction_policy, is_volatile)

        return create_masked_load

    def _masked_store(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, cache_modifier: Any,
                                eviction_policy: Any) -> Any:
            san.stored = value
            try:
                mask = san.checked_mask("store", ptrs, mask)
            finally:
                san.stored = None
            return original(self, ptrs, value, mask, cache_modifier, eviction_policy)

        return create_masked_store

    def _atomic_rmw(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_atomic_rmw(self: Any, rmwOp: Any, ptr: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Any:
            if "XCHG" in str(rmwOp).upper():
                san._guard("lock", san._lock)  # an exchange is how a spin lock is taken (or released)
            mask = san.checked_mask("atomic", ptr, mask)
            return original(self, rmwOp, ptr, val, mask, sem, scope)

        return create_atomic_rmw

    def _atomic_cas(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_atomic_cas(self: Any, ptr: Any, cmp: Any, val: Any, sem: Any, scope: Any) -> Any:
            san._guard("lock", san._lock)
            keep = san._guard("check cas", lambda: san._check("atomic", ptr, None, True))
            if keep is None:
                return original(self, ptr, cmp, val, sem, scope)
            # CAS has no mask: each out-of-bounds lane operates on its own zeroed scratch word instead,
            # fresh for this call, so what it reads back (always 0) is no earlier lane's, launch's or
            # test's leftover: a shared word kept the 1 a first lock attempt wrote, and the same
            # kernel then spun or not depending on what ran before it in the process.
            lanes = np.asarray(ptr.data)
            scratch = np.zeros(max(lanes.size, 1), dtype=np.uint64)
            words = np.uint64(scratch.ctypes.data) + np.arange(lanes.size, dtype=np.uint64).reshape(
                lanes.shape) * np.uint64(scratch.itemsize)
            data = np.where(keep, ptr.data, words).astype(np.uint64)
            result = original(self, san.interp.TensorHandle(data, ptr.dtype), cmp, val, sem, scope)
            del scratch  # alive until the CAS has run
            return result

        return create_atomic_cas

    def checked_mask(self, kind: str, ptrs: Any, mask: Any) -> Any:
        """``mask`` with the out-of-bounds lanes cleared (in the form the interpreter passed it: a
        handle, a bare array from a tensor descriptor, or None), after recording them."""
        unmasked = self.unmasked
        self.unmasked = False
        try:
            keep = self._check(kind, ptrs, _mask_data(mask), unmasked)
            if keep is None:
                return mask
            if isinstance(mask, np.ndarray):
                return keep
            return self.interp.TensorHandle(keep, mask.dtype if mask is not None else _bool_ty())
        except Exception as exc:  # noqa: BLE001 - see _guard
            self.report.internal_error(f"check {kind}", exc)
            return mask

    def _check(self, kind: str, ptrs: Any, mask: np.ndarray | None, unmasked: bool) -> np.ndarray | None:
        addr = np.asarray(ptrs.data)
        shape = addr.shape
        active = np.ones(shape, dtype=bool) if mask is None else _full(mask, shape)
        self.report.count({"load": "loads", "store": "stores", "atomic": "atomics"}[kind], int(active.sum()))
        launch = self.report.launch
        if launch is None:
            return None
        itemsize = _itemsize(ptrs)
        region = ptrs.attr.get(REGION)
        owner = launch.owner(addr, itemsize)
        # with provenance the access must stay in *its* storage; without, in any argument's storage
        ok = owner == region if region is not None else owner >= 0
        wrap = _wrap_of(ptrs)
        wrapped = None if wrap is None else active & _full(wrap, shape)
        if wrapped is not None and wrapped.any():
            self._pid()
            self._report_wrap(kind, ptrs, wrapped, launch)
        bad = active & ~ok
        self._guard("race record", lambda: self._record_access(kind, addr, active & ok))
        if not bad.any():
            return None
        self._pid()
        self._report_oob(kind, addr, bad, region, itemsize, unmasked, launch)
        return active & ok

    def _lock(self) -> None:
        self._pid()
        self.report.races.lock(self.report.pid)

    def _record_access(self, kind: str, addr: np.ndarray, lanes: np.ndarray) -> None:
        """Feed the executed lanes of one access to the race tracker (tools/engine/harness/sanitizer/races.py)."""
        if not lanes.any():
            return
        self._pid()
        values = None
        if kind == "store" and self.stored is not None:
            data = np.asarray(getattr(self.stored, "data", self.stored))
            if data.dtype.kind in "biuf":
                values = np.broadcast_to(data, addr.shape)[lanes]
        self.report.races.record(kind, addr[lanes], self.report.pid, user_location(), values)

    def _report_oob(self, kind: str, addr: np.ndarray, bad: np.ndarray, region: int | None, itemsize: int,
                    unmasked: bool, launch: Any) -> None:
        where = user_location()
        lanes = np.flatnonzero(bad)
        bad_addr = addr.reshape(-1)[lanes]
        if region is not None:
            regs, attribution = np.full(lanes.shape, region, dtype=np.int64), "provenance"
        else:
            regs, attribution = launch.nearest(bad_addr), "nearest argument (provenance lost)"
        for r in np.unique(regs):
            reg = launch.regions[int(r)]
            sel = regs == r
            a = bad_addr[sel]
            before = a < np.uint64(reg.start)
            for direction, part in (("before_start", before), ("past_end", ~before)):
                if not part.any():
                    continue
                elems = reg.element(a[part], itemsize)
                offsets = a[part][:4].astype(np.int64) - np.int64(reg.base)
                examples = [{"lane": int(ln), "element": int(el), "offset_bytes": int(ob)}
                            for ln, el, ob in zip(lanes[sel][part][:4], elems[:4], offsets)]
                self.report.violation(
                    f"oob_{kind}", where, key=(reg.name, direction, not unmasked), lanes=int(part.sum()),
                    elements=elems, examples=examples,
                    fields={"arg": reg.name, "direction": direction, "masked": not unmasked,
                            "valid_elements": reg.valid_elements(itemsize), "itemsize": itemsize,
                            "arg_dtype": reg.dtype, "arg_shape": reg.shape, "attribution": attribution,
                            "block_shape": list(addr.shape)})

    def _report_wrap(self, kind: str, ptrs: Any, wrapped: np.ndarray, launch: Any) -> None:
        site = ptrs.attr.get(WRAP_SITE) or {}
        lanes = np.flatnonzero(wrapped)
        region = ptrs.attr.get(REGION)
        name = launch.regions[region].name if region is not None else None
        self.report.violation(
            "int32_overflow", user_location(), key=(name, site.get("file"), site.get("line")), lanes=int(lanes.size),
            examples=[{"lane": int(ln)} for ln in lanes[:4]],
            fields={"arg": name, "access": kind, "origin": site})

    # -- device_assert -----------------------------------------------------------------------
    def _assert(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_assert(self: Any, condition: Any, message: Any) -> Any:
            san._guard("assert", lambda: san._check_assert(condition, message))
            return None

        return create_assert

    def _check_assert(self, condition: Any, message: Any) -> None:
        cond = np.asarray(condition.data).astype(bool)
        self.report.data["asserts_evaluated"] += 1
        if cond.all():
            return
        self._pid()
        lanes = np.flatnonzero(~cond)
        self.report.violation("device_assert", user_location(), key=(str(message),), lanes=int(lanes.size),
                              examples=[{"lane": int(ln)} for ln in lanes[:4]],
                              fields={"message": str(message)[:300], "block_shape": list(cond.shape)})

    # -- int32 wrap tracking -----------------------------------------------------------------
    def _binary_op(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def binary_op(self: Any, lhs: Any, rhs: Any, op: Any) -> Any:
            out = original(self, lhs, rhs, op)
            san._guard("binary_op", lambda: san._track(lhs, rhs, op, out))
            return out

        return binary_op

    def _track(self, lhs: Any, rhs: Any, op: Any, out: Any) -> None:
        data = out.data
        if data.dtype.kind not in "iu":
            return  # floats, and comparisons (bool results)
        _carry_address_region(out, lhs, rhs)
        shape = data.shape
        wrap = _any_of(shape, _wrap_of(lhs), _wrap_of(rhs))
        site_from: tuple[Any, ...] = (lhs, rhs)
        name = _ARITH.get(op)
        if name is not None and data.dtype.kind == "i" and data.dtype.itemsize < 8:
            exact = op(lhs.data.astype(np.int64), rhs.data.astype(np.int64))
            over = _full(exact != data.astype(np.int64), shape)
            if over.any():
                wrap = over if wrap is None else (wrap | over)
                if all(_wrap_of(h) is None for h in (lhs, rhs)):
                    self._pid()
                    i = int(np.flatnonzero(over)[0])
                    lv = np.broadcast_to(lhs.data, shape).reshape(-1)[i]
                    rv = np.broadcast_to(rhs.data, shape).reshape(-1)[i]
                    ev = np.broadcast_to(exact, shape).reshape(-1)[i]
                    out.attr[WRAP_SITE] = {**user_location(), "op": name, "dtype": str(data.dtype),
                                           "program": list(self.report.pid), "lhs": int(lv), "rhs": int(rv),
                                           "exact": int(ev), "wrapped": int(data.reshape(-1)[i])}
                    site_from = (out,)
        _set_wrap(out, wrap, *site_from)

    def _elementwise2(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_idiv(self: Any, lhs: Any, rhs: Any) -> Any:
            out = original(self, lhs, rhs)
            san._guard("idiv", lambda: _set_wrap(out, _any_of(out.data.shape, _wrap_of(lhs), _wrap_of(rhs)), lhs, rhs))
            return out

        return create_idiv

    def _cast(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def cast(self: Any, src: Any, dst_type: Any) -> Any:
            out = original(self, src, dst_type)

            def carry() -> None:
                _carry_region(out, src)
                if out.data.dtype.kind in "iu":
                    _set_wrap(out, _any_of(out.data.shape, _wrap_of(src)), src)

            san._guard("cast", carry)
            return out

        return cast

    def _address_cast(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """A pointer cast to an integer, offset as an integer and cast back keeps the storage it came
        from; a pointer or address without one takes the one storage all its lanes point into (an
        argument pointer, an address loaded from memory), as ``create_addptr`` does. Without it the
        access was checked against every argument, and an overrun into a neighbouring argument was a
        valid access (and a race) or not depending on where the allocator had put that argument."""
        san = self

        def address_cast(self: Any, src: Any, dst_type: Any) -> Any:
            out = original(self, src, dst_type)

            def carry() -> None:
                _carry_region(out, src)
                launch = san.report.launch
                if REGION not in out.attr and launch is not None:
                    owners = np.unique(launch.owner(np.asarray(src.data).reshape(-1), 1))
                    if owners.size == 1 and owners[0] >= 0:
                        out.attr[REGION] = int(owners[0])

            san._guard("address cast", carry)
            return out

        return address_cast

    def _addptr(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_addptr(self: Any, ptr: Any, offset: Any) -> Any:
            out = original(self, ptr, offset)

            def carry() -> None:
                region = ptr.attr.get(REGION)
                launch = san.report.launch
                if region is None and launch is not None:
                    owners = np.unique(launch.owner(np.asarray(ptr.data), 1))
                    if owners.size == 1 and owners[0] >= 0:
                        region = int(owners[0])
                if region is not None:
                    out.attr[REGION] = region
                _set_wrap(out, _any_of(out.data.shape, _wrap_of(ptr), _wrap_of(offset)), offset, ptr)

            san._guard("addptr", carry)
            return out

        return create_addptr

    def _descriptor_pointers(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """A tensor descriptor's (or, up to Triton 3.7, a block pointer's) pointers keep the
        provenance of its base: without it an access past the described tensor is checked against
        *every* argument storage, and whether it lands in a neighbouring one (then a "valid" access,
        and a race with that tensor's writers) depends on where the allocator happened to put the
        arguments. The one argument is the descriptor's offsets or the block pointer's boundary check."""
        san = self

        def materialize_pointers(self: Any, offsets: Any) -> Any:
            ptrs, masks = original(self, offsets)

            def carry() -> None:
                base = self.base
                region = getattr(base, "attr", {}).get(REGION)
                launch = san.report.launch
                if region is None and launch is not None:
                    owners = np.unique(launch.owner(np.asarray(base.data).reshape(-1), 1))
                    if owners.size == 1 and owners[0] >= 0:
                        region = int(owners[0])
                if region is not None:
                    ptrs.attr[REGION] = region

            san._guard("descriptor", carry)
            return ptrs, masks

        return materialize_pointers

    def _shape_op(self, fn: Callable[[np.ndarray, tuple[Any, ...]], np.ndarray]):
        san = self

        def make(original: Callable[..., Any]) -> Callable[..., Any]:
            def shape_op(self: Any, arg: Any, *rest: Any) -> Any:
                out = original(self, arg, *rest)

                def carry() -> None:
                    _carry_region(out, arg)
                    w = _wrap_of(arg)
                    if w is not None:
                        _set_wrap(out, np.asarray(fn(_full(w, arg.data.shape), rest)), arg)

                san._guard("shape", carry)
                return out

            return shape_op

        return make

    def _splat(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_splat(self: Any, ret_ty: Any, arg: Any) -> Any:
            out = original(self, ret_ty, arg)

            def carry() -> None:
                _carry_region(out, arg)
                w = _wrap_of(arg)
                if w is not None and bool(np.asarray(w).reshape(-1)[0]):
                    _set_wrap(out, np.ones(out.data.shape, dtype=bool), arg)

            san._guard("splat", carry)
            return out

        return create_splat

    def _select(self, original: Callable[..., Any]) -> Callable[..., Any]:
        san = self

        def create_select(self: Any, cond: Any, lhs: Any, rhs: Any) -> Any:
            out = original(self, cond, lhs, rhs)

            def carry() -> None:
                _carry_region(out, lhs, rhs)
                wl, wr = _wrap_of(lhs), _wrap_of(rhs)
                if wl is not None or wr is not None:
                    shape = out.data.shape
                    z = np.zeros(shape, dtype=bool)
                    w = np.where(_full(cond.data, shape), _full(wl, shape) if wl is not None else z,
                                 _full(wr, shape) if wr is not None else z)
                    _set_wrap(out, w, lhs, rhs)

            san._guard("select", carry)
            return out

        return create_select


def _bool_ty() -> Any:
    import triton.language as tl

    return tl.int1


def _regions(named: list[tuple[str, Any]]) -> list[Region]:
    """One region per distinct storage among the (possibly nested) tensor arguments."""
    by_start: dict[int, Region] = {}

    def visit(name: str, value: Any) -> None:
        if isinstance(value, tuple):
            for i, v in enumerate(value):
                visit(f"{name}[{i}]", v)
            return
        base = getattr(value, "base", None)
        if base is not None and hasattr(value, "block_shape"):  # TensorDescriptor
            visit(f"{name}.base", base)
            return
        if not hasattr(value, "data_ptr") or not hasattr(value, "untyped_storage"):
            return
        t = getattr(value, "base", value) if type(value).__name__ == "TensorWrapper" else value
        storage = t.untyped_storage()
        start = int(storage.data_ptr())
        if start in by_start:
            by_start[start].name += f",{name}"
            return
        by_start[start] = Region(name=name, start=start, end=start + int(storage.nbytes()), base=int(t.data_ptr()),
                                 itemsize=int(t.element_size()), dtype=str(t.dtype).removeprefix("torch."),
                                 shape=list(t.shape), position=len(by_start))

    for name, value in named:
        visit(name, value)
    return list(by_start.values())
