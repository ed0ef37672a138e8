"""NKI tensors: storage in a buffer (HBM, SBUF, PSUM), and tiles (views) addressing it.

A ``Storage`` owns the values, a per-element *initialised* flag and per-element write stamps (see
``context``). A ``Tile`` is what kernels hold: a whole tensor or a view made by indexing one. Views
keep the (possibly out-of-bounds) coordinates they address; bounds are checked when an operation
uses them, against the operation's mask, as NKI does (``err_tensor_access_out_of_bound``).
"""

from __future__ import annotations

import linecache
import math
import re
from typing import Any, Self

import numpy as np

import tools.engine.nki.version as V
import tools.engine.nki.interp.context as context
import tools.engine.nki.interp.races as races
from tools.engine.nki.interp.dtypes import as_dtype, uninit_fill
from tools.engine.nki.interp.errors import NkiUnsupported
from tools.engine.nki.interp.index import Index, Mask, mask_array
from tools.engine.nki.interp.recorder import RECORDER, user_location, violation

_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]")


class Buffer:
    def __init__(self, name: str, space: str) -> None:
        self.name, self.space = name, space

    def __repr__(self) -> str:
        return f"nl.{self.name}"


hbm = Buffer("hbm", "hbm")
private_hbm = hbm
shared_hbm = Buffer("shared_hbm", "hbm")
sbuf = Buffer("sbuf", "sbuf")
psum = Buffer("psum", "psum")


class par_dim(int):
    """``nl.par_dim(n)``: marks the partition dimension of a shape."""


def _counter() -> Any:
    n = 0

    def nxt() -> int:
        nonlocal n
        n += 1
        return n

    return nxt


_next_id = _counter()


class Storage:
    def __init__(self, shape: tuple[int, ...], dtype: Any, buffer: Buffer, *, name: str = "",
                 data: np.ndarray | None = None, initialised: bool = False) -> None:
        self.buffer = buffer
        self.space = buffer.space
        self.shape = tuple(int(s) for s in shape)
        self.dtype = as_dtype(dtype)
        self.name = name or f"t{_next_id()}"
        if data is not None:
            self.data = data
            self.init = np.ones(self.shape, dtype=bool)
        else:
            self.data = np.full(self.shape, uninit_fill(self.dtype), dtype=self.dtype)
            self.init = np.full(self.shape, bool(initialised))
        #: elements ever written (``init`` says whether their value is defined)
        self.written = self.init.copy()
        self.stamps: np.ndarray | None = None
        #: last writer / last reader per element, while an ordered loop runs (see ``races``)
        self.w_site: np.ndarray | None = None
        self.r_stamps: np.ndarray | None = None
        self.r_site: np.ndarray | None = None
        self.r_prev: np.ndarray | None = None
        self.r_prev_site: np.ndarray | None = None
        self.alloc_epoch = 0
        self.token: dict[str, Any] | None = None
        self.out_of_scope = False
        self.param: str | None = None  # "immutable" | "mutable" for kernel arguments
        self.pending = False  # on-chip memory not yet accounted (a matmul result, see context)
        self.where: tuple[str, int] | None = None  # kernel source line that allocated it
        self.shared = False

    @property
    def bytes_per_partition(self) -> int:
        return int(math.prod(self.shape[1:]) * self.dtype.itemsize) if self.shape else self.dtype.itemsize

    def describe(self) -> str:
        return f"'{self.name}' {self.dtype}{list(self.shape)} in {self.buffer.name}"


def _is_int(k: Any) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _expand_key(key: Any, ndim: int) -> tuple[Any, ...]:
    key = key if isinstance(key, tuple) else (key,)
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in [k for k in key if k is Ellipsis]:
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (ndim - len(key) + 1) + key[i + 1:]
    if len(key) > ndim:
        raise IndexError(f"too many indices for a tensor of rank {ndim}: {len(key)}")
    return key


def resolve_key(shape: tuple[int, ...], key: Any) -> tuple[tuple[int, ...], list[np.ndarray]]:
    """Tile shape and, per source dimension, the raw (unchecked) index array broadcastable to it."""
    given = _expand_key(key, len(shape))
    key = given + (slice(None),) * (len(shape) - len(given))
    for k in key:
        if isinstance(k, Tile):
            raise NkiUnsupported("indexing with a tensor of runtime values (indirect/dynamic access)")
        if k is None or isinstance(k, (Mask, bool, np.bool_)):
            raise NkiUnsupported(f"indexing a tensor with {type(k).__name__}")
        if not (isinstance(k, (slice, Index)) or _is_int(k)):
            raise TypeError(f"unsupported index {k!r}")
    adv = [k for k in key if isinstance(k, Index)]
    if adv:
        if any(isinstance(k, slice) for k in given) or len(given) < len(shape):
            raise violation("err_unsupported_mixing_basic_advanced_tensor_indexing",
                            "Mixing basic tensor indexing and advanced tensor indexing is not supported.",
                            exc_type=IndexError, documented=True, kind="mixed_indexing")
        if any(k.ndim < 2 for k in adv) and len(shape) >= 2:
            raise violation("err_1d_arange_not_supported",
                            "indexing tensor with 1d arange is not supported; add an axis "
                            "(nl.arange(n)[:, None] or [None, :])", exc_type=IndexError, documented=True,
                            kind="1d_arange")
        try:
            out = np.broadcast_shapes(*(k.shape for k in adv))
        except ValueError as exc:
            raise IndexError(f"index grids of shapes {[k.shape for k in adv]} do not broadcast") from exc
        raws = [k.v if isinstance(k, Index) else np.asarray(int(k)) for k in key]
        return tuple(out), raws
    out_dims: list[int] = []
    raws_basic: list[tuple[np.ndarray, int | None]] = []
    for d, k in enumerate(key):
        size = shape[d]
        if isinstance(k, slice):
            start, stop, step = k.start, k.stop, k.step if k.step is not None else 1
            start = 0 if start is None else (int(start) + size if int(start) < 0 else int(start))
            stop = size if stop is None else (int(stop) + size if int(stop) < 0 else int(stop))
            vals = np.arange(start, stop, int(step), dtype=np.int64)
            raws_basic.append((vals, len(out_dims)))
            out_dims.append(len(vals))
        else:
            i = int(k)
            raws_basic.append((np.asarray(i + size if i < 0 else i, dtype=np.int64), None))
    lead_dropped = len(shape) >= 2 and raws_basic[0][1] is None
    pad_front = 1 if len(out_dims) < 2 and len(shape) >= 2 and lead_dropped else 0
    out_shape = [1] * pad_front + out_dims
    if len(out_shape) < 2 and len(shape) >= 2:
        out_shape.append(1)
    raws = []
    for vals, axis in raws_basic:
        if axis is None:
            raws.append(vals)
        else:
            shp = [1] * len(out_shape)
            shp[axis + pad_front] = len(vals)
            raws.append(vals.reshape(shp))
    return tuple(out_shape), raws


# Rationale: a tile's operators are nki.language's functions (``x + y`` is ``nl.add(x, y)``), and
# language.py builds on this module; it registers itself here when it loads instead of this module
# importing it back.
_OPERATORS: Any = None


def bind_operators(module: Any) -> None:
    global _OPERATORS
    _OPERATORS = module


def _operators() -> Any:
    if _OPERATORS is None:
        raise RuntimeError("nki.language is not loaded: import tools.engine.nki.interp")
    return _OPERATORS


class Tile:
    """A NKI tensor or a view of one. Operators follow ``nki.language`` semantics."""

    __array_priority__ = 1000

    def __init__(self, store: Storage, shape: tuple[int, ...] | None = None,
                 coords: tuple[np.ndarray, ...] | None = None,
                 checks: list[tuple[int, np.ndarray, int]] | None = None) -> None:
        self.store = store
        self.shape = tuple(shape) if shape is not None else store.shape
        self.coords = coords
        self.checks = checks or []
        self._accumulated = False

    # -- facts -------------------------------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        return self.store.dtype

    @property
    def buffer(self) -> Buffer:
        return self.store.buffer

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def name(self) -> str:
        return self.store.name

    def describe(self) -> str:
        return f"'{self.store.name}' {self.dtype}{list(self.shape)} in {self.buffer.name}"

    def __repr__(self) -> str:
        return f"<NKI tensor {self.describe()}>"

    def __len__(self) -> int:
        return self.shape[0]

    def __bool__(self) -> bool:
        if int(np.prod(self.shape)) > 1:
            raise violation("err_ambiguous_tensor_truth_value",
                            "Cannot evaluate truth value of a multi-element tensor/array.", exc_type=ValueError,
                            documented=True, kind="ambiguous_truth")
        raise violation("err_dynamic_control_flow_not_supported",
                        "dynamic control-flow depending on tensor value is not supported.", documented=True,
                        kind="dynamic_control_flow")

    def __iter__(self) -> Any:
        raise TypeError("NKI tensors are not iterable; index them with slices or nl.arange grids")

    # -- views -------------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Tile:
        out_shape, raws = resolve_key(self.shape, key)
        clipped = tuple(np.clip(r, 0, max(self.shape[d] - 1, 0)) for d, r in enumerate(raws))
        checks = []
        for d, r in enumerate(raws):
            if r.size and (r.min() < 0 or r.max() >= self.shape[d]):
                checks.append((d, np.broadcast_to(r, out_shape), self.shape[d]))
        if self.coords is None and not self.checks:
            coords = tuple(np.broadcast_to(c, out_shape) for c in clipped)
            checks_here = checks
        else:
            base = self.full_coords()
            coords = tuple(np.broadcast_to(c, self.shape)[clipped] for c in base)
            coords = tuple(np.broadcast_to(c, out_shape) for c in coords)
            inherited = [(d, np.broadcast_to(np.broadcast_to(r, self.shape)[clipped], out_shape), s)
                         for d, r, s in self.checks]
            checks_here = inherited + checks
        return Tile(self.store, out_shape, coords, checks_here)

    def full_coords(self) -> tuple[np.ndarray, ...]:
        if self.coords is not None:
            return self.coords
        return tuple(np.broadcast_to(np.arange(s).reshape([-1 if i == d else 1 for i in range(len(self.shape))]),
                                     self.shape) for d, s in enumerate(self.shape))

    def reshape(self, shape: Any) -> Tile:
        shape = tuple(int(s) for s in shape)
        if self.coords is not None or self.store.space != "hbm":
            raise NkiUnsupported("reshape of an on-chip tile or of a tensor view")
        if math.prod(shape) != math.prod(self.shape):
            raise ValueError(f"cannot reshape {list(self.shape)} to {list(shape)}")
        st = self.store
        if st.stamps is None:
            st.stamps = np.zeros(st.shape, dtype=np.int32)
        twin = Storage(shape, st.dtype, st.buffer, name=st.name, data=st.data.reshape(shape))
        twin.init, twin.stamps = st.init.reshape(shape), st.stamps.reshape(shape)
        races.ensure(st)
        for attr in ("w_site", "r_stamps", "r_site", "r_prev", "r_prev_site"):
            setattr(twin, attr, getattr(st, attr).reshape(shape))
        twin.written = st.written.reshape(shape)
        twin.alloc_epoch, twin.param, twin.shared = st.alloc_epoch, st.param, st.shared
        return Tile(twin)

    def view(self, dtype: Any) -> Tile:
        raise NkiUnsupported("tensor.view (reinterpreting a tensor's bytes)")

    def broadcast_to(self, shape: Any) -> Tile:
        language = _operators()
        return language.broadcast_to(self, shape=shape)

    # -- element access (used by every operation) ---------------------------------------------
    def _guard(self, what: str) -> None:
        if self.store.out_of_scope:
            raise violation("err_local_variable_used_out_of_scope",
                            f"Local variable '{self.store.name}' is referenced outside of its parent scope "
                            f"({what}); tensors defined in a loop body cannot be used after that iteration",
                            documented=True, kind="out_of_scope")

    def _bounds(self, m: np.ndarray | None) -> None:
        for d, raw, size in self.checks:
            bad = (raw < 0) | (raw >= size)
            if m is not None:
                bad = bad & m
            if bad.any():
                active = raw[m] if m is not None else raw
                raise violation(
                    "err_tensor_access_out_of_bound",
                    f"Out-of-bound access for tensor `{self.store.name}` on dimension {d}: index range "
                    f"[{int(active.min())}, {int(active.max())}] exceed dimension size of {size}",
                    exc_type=IndexError, documented=True, kind="oob", tensor=self.store.name, dim=d)

    def _coords_for(self, m: np.ndarray | None) -> tuple[np.ndarray, ...] | None:
        if m is None:
            return self.coords
        return tuple(c[m] for c in self.full_coords())

    def read(self, mask: Any = None, *, what: str = "", accumulate: bool = False,
             consume: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The tile's values (tile shape, storage dtype) and which of them are defined.

        Undefined values (never written, or computed from such) are tracked, not reported here: a
        kernel may compute on garbage it never stores (the tutorials' masked tails do). They are
        reported when they reach device memory (``write`` into HBM)."""
        self._guard(what)
        m = mask_array(mask, self.shape)
        self._bounds(m)
        st = self.store
        run = context.active()
        if st.pending and not consume and run is not None:
            run.account(st)
        if self.coords is None:
            vals, init = st.data, st.init
        else:
            vals, init = st.data[self.coords], st.init[self.coords]
        if run is not None:
            run.check_access(st, self._coords_for(m), write=False, accumulate=accumulate, what=what)
        return np.array(vals, copy=True), np.array(init, copy=True)

    def write(self, values: Any, mask: Any = None, *, what: str = "", accumulate: bool = False,
              defined: Any = True) -> None:
        st = self.store
        if st.param == "immutable":
            raise violation("err_cannot_update_immutable_parameter",
                            f"Cannot update immutable parameter `{st.name}` ({what or 'write'}); annotate it "
                            "nt.mutable_tensor and return it, or write to a new nl.shared_hbm tensor",
                            documented=True, kind="immutable_parameter", tensor=st.name)
        self._guard(what)
        m = mask_array(mask, self.shape)
        self._bounds(m)
        vals = np.asarray(values)
        try:
            vals = np.broadcast_to(vals, self.shape)
            ok = np.broadcast_to(np.asarray(defined, dtype=bool), self.shape)
        except ValueError as exc:
            raise violation(
                "err_store_dst_shape_smaller_than_other_shape",
                f"Illegal assignment destination shape in 'a = b': shape {list(self.shape)} of parameter 'a' "
                f"is smaller than other parameter shapes b{list(np.shape(values))}.", exc_type=ValueError,
                documented=True, kind="assignment_shape") from exc
        with np.errstate(invalid="ignore", over="ignore"):
            vals = vals.astype(st.dtype)
        if st.space == "hbm":
            bad = ~ok if m is None else (~ok & m)
            if bad.any():
                first = [int(i) for i in np.argwhere(bad)[0]]
                RECORDER.event("uninit_read",
                               f"{what or 'a store'} writes {int(bad.sum())} element(s) computed from "
                               f"uninitialised memory into {st.describe()} (first at tile index {first}); on "
                               "hardware they hold whatever on-chip memory held before",
                               dedupe=(st.name,), tensor=st.name, count=int(bad.sum()))
        run = context.active()
        coords = self._coords_for(m)
        if run is not None:
            run.check_access(st, coords, write=True, accumulate=accumulate, what=what)
        src = vals if m is None else vals[m]
        okv = ok if m is None else ok[m]
        if coords is None:
            st.data[...] = src
            st.init[...] = okv
            st.written[...] = True
        else:
            st.data[coords] = src
            st.init[coords] = okv
            st.written[coords] = True

    # -- assignment and accumulation ----------------------------------------------------------
    def __setitem__(self, key: Any, value: Any) -> None:
        target = self[key]
        if isinstance(value, Tile) and value._accumulated and value.store is self.store:
            value._accumulated = False
            return  # ``t[...] += x`` already accumulated in place through the view
        RECORDER.op("assign")
        vals, ok = _values_of(value, target, "assignment")
        target.write(vals, what="assignment", defined=ok)

    def __iadd__(self, other: Any) -> Self:
        RECORDER.op("accumulate")
        if self.store.space not in ("sbuf", "psum"):
            raise violation("err_unsupported_memory",
                            f"Expected operand 'dst' of '+=' to be in address space 'psum|sbuf', but got a tile "
                            f"in '{self.store.space}' instead.", documented=True, kind="memory_space")
        add, add_ok = _values_of(other, self, "+=")
        cur, cur_ok = self.read(what="+= (accumulate)", accumulate=True)
        with np.errstate(invalid="ignore", over="ignore"):
            total = cur.astype(np.float32) + np.broadcast_to(add, self.shape).astype(np.float32)
        self.write(total, what="+= (accumulate)", accumulate=True, defined=cur_ok & np.broadcast_to(add_ok, self.shape))
        self._accumulated = True
        return self

    # -- operators ---------------------------------------------------------------------------
    def _op(self, name: str, other: Any, reverse: bool = False) -> Any:
        language = _operators()
        fn = getattr(language, name)
        x, y = (other, self) if reverse else (self, other)
        return fn(x, y, _operator=True)

    def __add__(self, o: Any) -> Any: return self._op("add", o)
    def __radd__(self, o: Any) -> Any: return self._op("add", o, True)
    def __sub__(self, o: Any) -> Any: return self._op("subtract", o)
    def __rsub__(self, o: Any) -> Any: return self._op("subtract", o, True)
    def __mul__(self, o: Any) -> Any: return self._op("multiply", o)
    def __rmul__(self, o: Any) -> Any: return self._op("multiply", o, True)
    def __truediv__(self, o: Any) -> Any: return self._op("divide", o)
    def __rtruediv__(self, o: Any) -> Any: return self._op("divide", o, True)
    def __pow__(self, o: Any) -> Any: return self._op("power", o)
    def __mod__(self, o: Any) -> Any: return self._op("mod", o)
    def __lt__(self, o: Any) -> Any: return self._op("less", o)
    def __le__(self, o: Any) -> Any: return self._op("less_equal", o)
    def __gt__(self, o: Any) -> Any: return self._op("greater", o)
    def __ge__(self, o: Any) -> Any: return self._op("greater_equal", o)
    def __eq__(self, o: object) -> Any: return self._op("equal", o)  # type: ignore[override]
    def __ne__(self, o: object) -> Any: return self._op("not_equal", o)  # type: ignore[override]
    def __and__(self, o: Any) -> Any: return self._op("bitwise_and", o)
    def __or__(self, o: Any) -> Any: return self._op("bitwise_or", o)
    def __xor__(self, o: Any) -> Any: return self._op("bitwise_xor", o)
    def __lshift__(self, o: Any) -> Any: return self._op("left_shift", o)
    def __rshift__(self, o: Any) -> Any: return self._op("right_shift", o)
    __hash__ = object.__hash__

    def __neg__(self) -> Any:
        language = _operators()
        return language.negative(self)

    def __invert__(self) -> Any:
        language = _operators()
        return language.invert(self)

    def __abs__(self) -> Any:
        language = _operators()
        return language.abs(self)

    @property
    def T(self) -> Any:
        raise NkiUnsupported("tensor.T (use nl.transpose or nisa.nc_transpose)")


def _values_of(value: Any, target: Tile, what: str) -> tuple[Any, Any]:
    """Values (and their defined flags) of the right-hand side of an assignment."""
    if isinstance(value, Tile):
        if value.store.space == "hbm" and target.store.space != "hbm":
            raise violation("err_unsupported_memory",
                            f"Expected operand 'src' of '{what}' to be in address space 'psum|sbuf', but got a "
                            "tile in 'hbm' instead.", documented=True, kind="memory_space")
        return value.read(what=what, consume=value.store.pending)
    if isinstance(value, (Index, Mask)):
        raise violation("err_cannot_assign_to_index", "an 'index' tensor cannot be assigned to a tile; convert "
                        "it with nisa.iota first", exc_type=TypeError, documented=False, kind="assign_index")
    return np.asarray(value), True


def _default_name(api: str) -> str:
    """The variable the kernel assigns the new tensor to, else ``<api>@line N``."""
    file, line = user_location()
    m = _ASSIGNED.match(linecache.getline(file, line))
    return m.group(1) if m else f"{api}@line {line}"


def allocate(shape: Any, dtype: Any, buffer: Any, *, name: str = "", initialised: bool = False,
             data: np.ndarray | None = None, api: str = "ndarray", defer: bool = False) -> Tile:
    """A new tensor, checked and accounted like the compiler's allocator would."""
    run = context.current(f"nl.{api}")
    buf = sbuf if buffer is None else buffer
    if not isinstance(buf, Buffer):
        raise NkiUnsupported(f"buffer {buf!r} (direct allocation, nki.compiler)")
    dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if any(isinstance(s, par_dim) for s in dims[1:]):
        raise NkiUnsupported("block dimensions in front of the partition dimension (deprecated in NKI 2.25)")
    try:
        dims_i = tuple(int(s) for s in dims)
    except TypeError as exc:
        raise TypeError(f"shape must be integers, got {list(dims)}") from exc
    if buf.space in ("sbuf", "psum"):
        if len(dims_i) < 2:
            raise violation("insufficient_rank",
                            f"Insufficient rank: a tile on {buf.name.upper()} must have at least 2 dimensions "
                            f"(partition, free), got shape {list(dims_i)}", documented=True,
                            kind="insufficient_rank", doc=V.PAGES["known_issues"])
        if dims_i[0] > V.PMAX:
            raise violation("err_num_partition_exceed_arch_limit",
                            f"Size of partition dimension {dims_i[0]} exceeds architecture limitation of {V.PMAX}.",
                            documented=True, kind="partition_limit", shape=list(dims_i))
    if buf.space in ("sbuf", "psum"):
        dt = as_dtype(dtype)
        nm = name or _default_name(api)
        context.tile_limits(buf.space, int(math.prod(dims_i[1:])) * dt.itemsize, f"'{nm}' {dt}{list(dims_i)} in {buf.name}")
    if buf is shared_hbm and run.in_loop():
        raise violation("err_shared_hbm_must_in_kernel_level",
                        "shared_hbm buffer can only be created top level kernel scope", documented=True,
                        kind="shared_hbm_scope")
    if buf is shared_hbm and run.grid:
        existing = run.claim_shared(dims_i, dtype)
        if existing is not None:
            return Tile(existing)
    st = Storage(dims_i, dtype, buf, name=name or _default_name(api), data=data, initialised=initialised)
    st.where = user_location()
    run.allocate(st, defer=defer)
    if buf is shared_hbm and run.grid:
        run.register_shared(st)
    return Tile(st)
