"""``nki.language`` (``nl``) as the reviewer's interpreter implements it (NKI 2.25 semantics).

Names the interpreter does not model raise ``NkiUnsupported`` when used (module ``__getattr__``), so a
kernel using them is reported unverified, never failed.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

import tools.engine.nki.version as V
import tools.engine.nki.interp.context as context
import tools.engine.nki.interp.ops as ops
import tools.engine.nki.interp.dtypes as D
from tools.engine.nki.interp.dtypes import (  # noqa: F401 - public dtype names of nki.language
    bfloat16,
    bool_,
    float8_e4m3,
    float8_e5m2,
    float16,
    float32,
    int8,
    int16,
    int32,
    uint8,
    uint16,
    uint32,
)
from tools.engine.nki.interp.errors import NkiUnsupported, NkiUnsupportedName
from tools.engine.nki.interp.index import Index, arange, mgrid  # noqa: F401 - public API
from tools.engine.nki.interp.recorder import RECORDER, violation
from tools.engine.nki.interp.tensor import Tile, bind_operators, allocate, hbm, par_dim, private_hbm, psum, sbuf, shared_hbm  # noqa: F401 - public API

tensor = Tile


class tile_size:
    """``nl.tile_size`` (programming model, "Tile size considerations")."""

    pmax = V.PMAX
    psum_fmax = V.PSUM_FMAX
    gemm_stationary_fmax = V.GEMM_STATIONARY_FMAX
    gemm_moving_fmax = V.GEMM_MOVING_FMAX
    bn_stats_fmax = V.BN_STATS_FMAX
    psum_min_align = 4
    sbuf_min_align = 1


def ds(start: Any, size: int) -> slice:
    return slice(start, start + size)


# -- loops -----------------------------------------------------------------------------------------
def _loop(kind: str, args: tuple[Any, ...], scoped: bool) -> Any:
    run = context.current(f"nl.{kind}_range")
    r = range(*(int(a) for a in args))
    frame = context.new_frame(kind, len(r), scoped=scoped)
    run.push(frame)
    try:
        for i in r:
            run.begin_iteration(frame, i)
            yield i
    finally:
        run.end_loop(frame)


def affine_range(*args: Any, **kwargs: Any) -> Any:
    """Parallel loop: iterations must not depend on each other (checked, see ``context``)."""
    return _loop("affine", args, True)


def sequential_range(*args: Any, **kwargs: Any) -> Any:
    return _loop("sequential", args, True)


def static_range(*args: Any, **kwargs: Any) -> Any:
    return _loop("static", args, False)


def kernel_range(*args: Any) -> Any:
    """Python ``range`` inside a kernel: the compiler turns it into ``sequential_range``."""
    if context.active() is None:
        return range(*args)
    return _loop("range", args, False)


def program_id(axis: int) -> int:
    run = context.current("nl.program_id")
    return int(run.program_id[axis]) if axis < len(run.program_id) else 0


def num_programs(axes: Any = None) -> Any:
    grid = context.current("nl.num_programs").grid or (1,)
    if axes is None:
        return int(math.prod(grid))
    if isinstance(axes, (tuple, list)):
        return int(math.prod(grid[a] for a in axes))
    return int(grid[axes]) if axes < len(grid) else 1


def program_ndim() -> int:
    return len(context.current("nl.program_ndim").grid)


def device_print(prefix: str, x: Any, *, mask: Any = None, **kwargs: Any) -> None:
    vals = x.read(mask, what="device_print")[0] if isinstance(x, Tile) else x
    print(prefix, vals, flush=True)


# -- creation --------------------------------------------------------------------------------------
def ndarray(shape: Any, dtype: Any, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tile:
    RECORDER.op("ndarray")
    return allocate(shape, dtype, buffer, name=name, api="ndarray")


def _filled(api: str, shape: Any, value: Any, dtype: Any, buffer: Any, name: str) -> Tile:
    if buffer is not None and getattr(buffer, "space", None) == "hbm":
        raise violation("err_hbm_tensor_with_init_value_not_supported",
                        "Creating HBM tensor with init value is not supported.", documented=True,
                        kind="hbm_init_value")
    RECORDER.op(api)
    t = allocate(shape, dtype, buffer, name=name, api=api)
    t.write(value, what=api)
    return t


def zeros(shape: Any, dtype: Any, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tile:
    return _filled("zeros", shape, 0, dtype, buffer, name)


def ones(shape: Any, dtype: Any, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tile:
    return _filled("ones", shape, 1, dtype, buffer, name)


def full(shape: Any, fill_value: Any, dtype: Any, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tile:
    return _filled("full", shape, fill_value, dtype, buffer, name)


def empty_like(a: Any, dtype: Any = None, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tile:
    return ndarray(a.shape, dtype or a.dtype, buffer=buffer, name=name)


def zeros_like(a: Any, dtype: Any = None, *, buffer: Any = None, name: str = "", **kwargs: Any) -> Tile:
    return zeros(a.shape, dtype or a.dtype, buffer=buffer, name=name)


def rand(shape: Any, dtype: Any = np.float32, **kwargs: Any) -> Tile:
    rng = np.random.default_rng(0)
    return _filled("rand", shape, rng.random(tuple(shape)), dtype, None, "")


def shared_constant(constant: Any, dtype: Any = None, **kwargs: Any) -> Tile:
    arr = np.asarray(constant)
    dt = D.as_dtype(dtype or arr.dtype)
    return allocate(arr.shape, dt, hbm, data=arr.astype(dt), api="shared_constant")


def shared_identity_matrix(n: int, dtype: Any = np.uint8, **kwargs: Any) -> Tile:
    return shared_constant(np.eye(int(n)), dtype)


# -- data movement ---------------------------------------------------------------------------------
def load(src: Any, *, mask: Any = None, dtype: Any = None, **kwargs: Any) -> Tile:
    src = ops.tile_operand(src, "load", "src", ("hbm",))
    m = ops.active_mask(mask, src.shape)
    vals, ok = src.read(m, what="nl.load")
    return ops.result(vals, ok, src.shape, dtype or src.dtype, m, "load")


def store(dst: Any, value: Any, *, mask: Any = None, **kwargs: Any) -> None:
    dst = ops.tile_operand(dst, "store", "dst", ("hbm",))
    RECORDER.op("store")
    m = ops.active_mask(mask, dst.shape)
    if isinstance(value, Tile):
        ops.tile_operand(value, "store", "value")
        try:
            np.broadcast_shapes(value.shape, dst.shape)
        except ValueError as exc:
            raise ValueError(f"nl.store: value of shape {list(value.shape)} does not fit destination "
                             f"{list(dst.shape)}") from exc
        vals, ok = value.read(ops.sub_mask(m, value.shape, dst.shape), what="nl.store")
    else:
        vals, ok = np.asarray(value), True
    dst.write(vals, m, what="nl.store", defined=ok)


def load_transpose2d(src: Any, *, mask: Any = None, dtype: Any = None, **kwargs: Any) -> Tile:
    src = ops.tile_operand(src, "load_transpose2d", "src", ("hbm",))
    if src.ndim != 2:
        raise ValueError("load_transpose2d takes a 2D tensor")
    if mask is not None:
        raise NkiUnsupported("mask= on nl.load_transpose2d")
    vals, ok = src.read(what="nl.load_transpose2d")
    return ops.result(vals.T, ok.T, (src.shape[1], src.shape[0]), dtype or src.dtype, None, "load_transpose2d")


def copy(src: Any, *, mask: Any = None, dtype: Any = None, **kwargs: Any) -> Tile:
    src = ops.tile_operand(src, "copy", "src")
    m = ops.active_mask(mask, src.shape)
    vals, ok = src.read(m, what="nl.copy")
    return ops.result(vals, ok, src.shape, dtype or src.dtype, m, "copy")


def broadcast_to(src: Any, *, shape: Any, **kwargs: Any) -> Tile:
    src = ops.tile_operand(src, "broadcast_to", "src")
    shape = tuple(int(s) for s in shape)
    if tuple(src.shape) == shape:
        return src
    vals, ok = src.read(what="broadcast_to")
    try:
        v, o = np.broadcast_to(vals, shape), np.broadcast_to(ok, shape)
    except ValueError as exc:
        raise ValueError(f"cannot broadcast {list(src.shape)} to {list(shape)}") from exc
    return ops.result(v, o, shape, src.dtype, None, "broadcast_to")


def expand_dims(data: Any, axis: int) -> Tile:
    data = ops.tile_operand(data, "expand_dims", "data")
    vals, ok = data.read(what="expand_dims")
    v, o = np.expand_dims(vals, axis), np.expand_dims(ok, axis)
    return ops.result(v, o, v.shape, data.dtype, None, "expand_dims")


# -- element-wise math -----------------------------------------------------------------------------
def _erf(a: np.ndarray) -> np.ndarray:
    import torch

    return torch.special.erf(torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))).numpy()


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 0.5 * (np.tanh(0.5 * a) + 1.0)


_SQRT2 = math.sqrt(2.0)
UNARY = {
    "abs": np.abs, "negative": np.negative, "sign": np.sign, "trunc": np.trunc, "floor": np.floor,
    "ceil": np.ceil, "exp": np.exp, "log": np.log, "cos": np.cos, "sin": np.sin, "tan": np.tan,
    "tanh": np.tanh, "arctan": np.arctan, "sqrt": np.sqrt, "rsqrt": lambda a: 1.0 / np.sqrt(a),
    "sigmoid": _sigmoid, "relu": lambda a: np.maximum(a, 0), "square": np.square,
    "softplus": lambda a: np.logaddexp(0, a), "mish": lambda a: a * np.tanh(np.logaddexp(0, a)),
    "gelu": lambda a: 0.5 * a * (1.0 + _erf(a / _SQRT2)),
    "gelu_dx": lambda a: 0.5 * (1.0 + _erf(a / _SQRT2)) + a * np.exp(-0.5 * a * a) / math.sqrt(2 * math.pi),
    "gelu_apprx_tanh": lambda a: 0.5 * a * (1.0 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3))),
    "silu": lambda a: a * _sigmoid(a),
    "silu_dx": lambda a: _sigmoid(a) * (1.0 + a * (1.0 - _sigmoid(a))),
    "erf": _erf, "erf_dx": lambda a: 2.0 / math.sqrt(math.pi) * np.exp(-a * a),
    "reciprocal": lambda a: 1.0 / a,
}


def _elementwise(api: str, fn: Any, xs: tuple[Any, ...], dtype: Any, mask: Any, *, operator: bool = False,
                 out_dtype: Any = None, int_only: bool = False) -> Tile:
    xs = tuple(ops.operand(x, api, n) for x, n in zip(xs, ("x", "y", "z")))
    shape = ops.broadcast(api, *xs, operator=operator)
    if len(shape) < 2:
        raise TypeError(f"'{api}' needs at least one tile operand")
    in_dt = ops.dtype_of(xs[0])
    for x in xs[1:]:
        in_dt = D.promote(in_dt, ops.dtype_of(x))
    if int_only and not all(D.is_int(ops.dtype_of(x)) for x in xs):
        raise violation("dtype_bitvec_operator",
                        f"'{api}' is a bitvec operator: it expects integer operands, got "
                        f"{[str(ops.dtype_of(x)) for x in xs]}", exc_type=TypeError, documented=False,
                        kind="dtype_rule", doc=V.PAGES["common_fields"])
    out = D.as_dtype(dtype) if dtype is not None else (D.as_dtype(out_dtype) if out_dtype is not None else in_dt)
    m = ops.active_mask(mask, shape)
    vals, oks = zip(*(ops.values(x, m, shape, api) for x in xs))
    compute = in_dt if int_only or D.is_int(in_dt) and D.is_int(out) else D.float32
    args = [ops.as_compute(v, compute) for v in vals]
    with np.errstate(all="ignore"):
        res = fn(*args)
    ok = np.ones(shape, dtype=bool)
    for o in oks:
        ok = ok & np.broadcast_to(o, shape)
    return ops.result(res, ok, shape, out, m, api)


def _unary(name: str) -> Any:
    fn = UNARY[name]

    def api(x: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tile:
        return _elementwise(name, fn, (x,), dtype, mask)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"nki.language.{name}: element-wise, computed in float32 and cast to the output dtype."
    return api


for _n in UNARY:
    globals()[_n] = _unary(_n)


def _binary(name: str, fn: Any, *, out_dtype: Any = None, int_only: bool = False) -> Any:
    def api(x: Any, y: Any, *, dtype: Any = None, mask: Any = None, _operator: bool = False, **kwargs: Any) -> Tile:
        return _elementwise(name, fn, (x, y), dtype, mask, operator=_operator, out_dtype=out_dtype,
                            int_only=int_only)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"nki.language.{name}: element-wise with NKI type promotion."
    return api


add = _binary("add", np.add)
subtract = _binary("subtract", np.subtract)
multiply = _binary("multiply", np.multiply)
divide = _binary("divide", np.divide)
power = _binary("power", np.power)
maximum = _binary("maximum", np.maximum)
minimum = _binary("minimum", np.minimum)
mod = _binary("mod", np.mod)
fmod = _binary("fmod", np.fmod)
equal = _binary("equal", np.equal, out_dtype=bool_)
not_equal = _binary("not_equal", np.not_equal, out_dtype=bool_)
greater = _binary("greater", np.greater, out_dtype=bool_)
greater_equal = _binary("greater_equal", np.greater_equal, out_dtype=bool_)
less = _binary("less", np.less, out_dtype=bool_)
less_equal = _binary("less_equal", np.less_equal, out_dtype=bool_)
logical_and = _binary("logical_and", np.logical_and, out_dtype=bool_)
logical_or = _binary("logical_or", np.logical_or, out_dtype=bool_)
logical_xor = _binary("logical_xor", np.logical_xor, out_dtype=bool_)
bitwise_and = _binary("bitwise_and", np.bitwise_and, int_only=True)
bitwise_or = _binary("bitwise_or", np.bitwise_or, int_only=True)
bitwise_xor = _binary("bitwise_xor", np.bitwise_xor, int_only=True)
left_shift = _binary("left_shift", np.left_shift, int_only=True)
right_shift = _binary("right_shift", np.right_shift, int_only=True)


def logical_not(x: Any, *, dtype: Any = bool, mask: Any = None, **kwargs: Any) -> Tile:
    return _elementwise("logical_not", np.logical_not, (x,), dtype, mask)


def invert(x: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tile:
    return _elementwise("invert", np.invert, (x,), dtype, mask, int_only=True)


def where(condition: Any, x: Any, y: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tile:
    def pick(c: Any, a: Any, b: Any) -> Any:
        return np.where(c != 0, a, b)

    out = dtype or D.promote(ops.dtype_of(x), ops.dtype_of(y))
    return _elementwise("where", pick, (condition, x, y), out, mask)


# -- reductions ------------------------------------------------------------------------------------
def _axes(api: str, x: Tile, axis: Any) -> tuple[int, ...]:
    axes = tuple(sorted(int(a) % x.ndim for a in (axis if isinstance(axis, (list, tuple)) else (axis,))))
    if 0 in axes:
        raise violation("reduce_partition_axis",
                        f"'{api}' reduces along axis {list(axes)}: the axes must be free dimensions, not the "
                        "partition dimension (0)", documented=False, kind="reduce_axis", doc=V.PAGES["language"])
    if axes != tuple(range(x.ndim - len(axes), x.ndim)):
        raise violation("reduce_axis_not_last",
                        f"'{api}' reduces along axes {list(axes)} of a rank-{x.ndim} tile: only the last "
                        "contiguous dimension(s) can be reduced ([1], [1,2], ...)", documented=False,
                        kind="reduce_axis", doc=V.PAGES["language"])
    return axes


def _reduce(api: str, fn: Any, x: Any, axis: Any, dtype: Any, mask: Any, keepdims: bool) -> Tile:
    x = ops.tile_operand(x, api, "x")
    axes = _axes(api, x, axis)
    m = ops.active_mask(mask, x.shape)
    vals, ok = x.read(m, what=api)
    out_dt = D.as_dtype(dtype) if dtype is not None else x.dtype
    compute = D.float32 if D.is_float(out_dt) or not D.is_int(x.dtype) else np.dtype(np.int64)
    data = vals.astype(compute)
    if m is not None:
        # Masked-off elements take no part in the reduction (the instruction only reads the active region).
        data = np.ma.masked_array(data, mask=~m)
        ok = ok | ~m
    with np.errstate(all="ignore"):
        res = fn(data, axis=axes, keepdims=True)
    res = np.ma.filled(res, np.nan) if np.ma.isMaskedArray(res) else np.asarray(res)
    okr = np.all(ok, axis=axes, keepdims=True)
    shape = res.shape
    if not keepdims:
        kept = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        # Rationale: a tile keeps its partition axis; a [P] reduction result behaves as [P, 1] in NKI
        # (the tutorials broadcast it against [P, F]), so only drop axes while two dims remain.
        if len(kept) >= 2:
            shape = kept
    rm = None if m is None else np.any(m, axis=axes, keepdims=True).reshape(shape)
    return ops.result(res.reshape(shape), okr.reshape(shape), shape, out_dt, rm, api)


def _reducer(name: str, fn: Any, default_dtype: Any = None) -> Any:
    def api(x: Any, axis: Any, *, dtype: Any = default_dtype, mask: Any = None, keepdims: bool = False,
            **kwargs: Any) -> Tile:
        return _reduce(name, fn, x, axis, dtype, mask, keepdims)

    api.__name__ = api.__qualname__ = name
    api.__doc__ = f"nki.language.{name} along free axes."
    return api


sum = _reducer("sum", np.sum)
prod = _reducer("prod", np.prod)
max = _reducer("max", np.max)
min = _reducer("min", np.min)
mean = _reducer("mean", np.mean)
var = _reducer("var", np.var)
all = _reducer("all", lambda a, axis, keepdims: np.all(a != 0, axis=axis, keepdims=keepdims), bool)


def softmax(x: Any, axis: Any, *, dtype: Any = None, compute_dtype: Any = None, mask: Any = None,
            **kwargs: Any) -> Tile:
    def fn(a: np.ndarray) -> np.ndarray:
        ax = tuple(range(a.ndim - len(axes), a.ndim))
        e = np.exp(a - np.max(a, axis=ax, keepdims=True))
        return e / np.sum(e, axis=ax, keepdims=True)

    axes = _axes("softmax", ops.tile_operand(x, "softmax", "x"), axis)
    return _elementwise("softmax", fn, (x,), dtype or compute_dtype, mask)


def rms_norm(x: Any, w: Any, axis: Any, n: int, epsilon: float = 1e-6, *, dtype: Any = None,
             compute_dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tile:
    xt = ops.tile_operand(x, "rms_norm", "x")
    axes = _axes("rms_norm", xt, axis)

    def fn(a: np.ndarray, g: np.ndarray) -> np.ndarray:
        ms = np.sum(a * a, axis=axes, keepdims=True) / float(n)
        return a / np.sqrt(ms + epsilon) * g

    return _elementwise("rms_norm", fn, (x, w), dtype or compute_dtype or xt.dtype, mask)


# -- matmul and transpose --------------------------------------------------------------------------
def matmul(x: Any, y: Any, *, transpose_x: bool = False, mask: Any = None, **kwargs: Any) -> Tile:
    """``x @ y`` (``x.T @ y`` with ``transpose_x``): lowers to ``nisa.nc_matmul``; fp32 PSUM result."""
    x = ops.tile_operand(x, "matmul", "x", ("sbuf",))
    y = ops.tile_operand(y, "matmul", "y", ("sbuf",))
    if not transpose_x:
        if x.ndim != 2:
            raise ValueError("nl.matmul without transpose_x takes a 2D x")
        vals, ok = x.read(what="nl.matmul (transpose of x)")
        x = ops.result(vals.T, ok.T, (x.shape[1], x.shape[0]), x.dtype, None, "matmul_transpose_x")
    return ops.matmul_core("matmul", x, y, mask)


def transpose(x: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tile:
    x = ops.tile_operand(x, "transpose", "x")
    desc = f"x{list(x.shape)}"
    if x.ndim != 2:
        raise violation("err_exceed_max_supported_dimension",
                        f"parameter '{desc}' of 'transpose' exceed max supported number of dimensions of 2.",
                        documented=True, kind="transpose_rank")
    for d, s in enumerate(x.shape):
        if s > V.PMAX:
            raise violation("err_size_of_dimension_exceed_arch_limit",
                            f"size of dimension {d} in '{desc}' of 'transpose' exceed architecture limitation "
                            f"of {V.PMAX}.", documented=True, kind="transpose_size")
    m = ops.active_mask(mask, x.shape)
    vals, ok = x.read(m, what="nl.transpose")
    return ops.result(vals.T, ok.T, (x.shape[1], x.shape[0]), dtype or x.dtype,
                      None if m is None else m.T, "transpose")


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NkiUnsupportedName(f"nki.language.{name}")


bind_operators(sys.modules[__name__])
