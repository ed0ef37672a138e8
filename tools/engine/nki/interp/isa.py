"""``nki.isa`` (``nisa``): the instructions the interpreter models, with their tile-size, memory and
dtype rules (NKI 2.25 ISA reference and architecture guide)."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

import tools.engine.nki.version as V
import tools.engine.nki.interp.dtypes as D
import tools.engine.nki.interp.language as nl
import tools.engine.nki.interp.ops as ops
from tools.engine.nki.interp.errors import NkiUnsupported, NkiUnsupportedName
from tools.engine.nki.interp.index import Index
from tools.engine.nki.interp.recorder import RECORDER, violation
from tools.engine.nki.interp.tensor import Tile, psum, sbuf


class engine(IntEnum):
    unknown = 0
    tensor = 1
    vector = 2
    scalar = 3
    gpsimd = 4


tensor_engine, vector_engine = engine.tensor, engine.vector
scalar_engine, gpsimd_engine, unknown_engine = engine.scalar, engine.gpsimd, engine.unknown


class oob_mode(IntEnum):
    error = 0
    skip = 1


class dge_mode(IntEnum):
    unknown = 0
    none = 1
    swdge = 2
    hwdge = 3


class nc_version(IntEnum):
    gen2 = 2
    gen3 = 3


def get_nc_version() -> nc_version:
    return nc_version.gen2


def nc_matmul(stationary: Any, moving: Any, *, is_stationary_onezero: bool = False, is_moving_onezero: bool = False,
              is_transpose: bool = False, tile_position: Any = (), tile_size: Any = (), mask: Any = None,
              **kwargs: Any) -> Tile:
    if tile_position or tile_size:
        raise NkiUnsupported("nc_matmul PE tiling (tile_position/tile_size)")
    return ops.matmul_core("nc_matmul", stationary, moving, mask)


def nc_transpose(data: Any, *, mask: Any = None, dtype: Any = None, engine: Any = engine.unknown,
                 **kwargs: Any) -> Tile:
    data = ops.tile_operand(data, "nc_transpose", "data")
    p = data.shape[0]
    f = int(np.prod(data.shape[1:]))
    small = p <= V.TRANSPOSE_VECTOR_MAX and f <= V.TRANSPOSE_VECTOR_MAX
    use_vector = engine == engine.vector or (engine == engine.unknown and small)
    limit = V.TRANSPOSE_VECTOR_MAX if use_vector else V.PMAX
    if p > limit or f > limit:
        raise violation("err_size_of_dimension_exceed_arch_limit",
                        f"size of dimension {0 if p > limit else 1} in 'data{list(data.shape)}' of 'nc_transpose' "
                        f"exceed architecture limitation of {limit}.", documented=True, kind="transpose_size")
    if not use_vector and data.store.space != "sbuf":
        raise ops.memory_error("nc_transpose", "data", "sbuf", data.store.space)
    m = ops.active_mask(mask, data.shape)
    vals, ok = data.read(m, what="nc_transpose")
    vals, ok = vals.reshape(p, f).T, ok.reshape(p, f).T
    return ops.result(vals, ok, (f, p), dtype or data.dtype, None, "nc_transpose",
                      buffer=sbuf if use_vector else psum)


_ALU = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "power": np.power, "mod": np.mod, "fmod": np.fmod,
    "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "less": np.less, "less_equal": np.less_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "left_shift": np.left_shift, "right_shift": np.right_shift,
    "max": np.maximum, "min": np.minimum, "amax": np.maximum, "amin": np.minimum,
}
_REDUCE = {"add": np.sum, "multiply": np.prod, "maximum": np.max, "minimum": np.min, "max": np.max,
           "min": np.min, "amax": np.max, "amin": np.min, "sum": np.sum}


def _op_name(op: Any) -> str:
    return getattr(op, "__name__", str(op))


def _alu(op: Any, api: str) -> Any:
    name = _op_name(op)
    if name not in _ALU:
        raise NkiUnsupported(f"operator {name} in nisa.{api}")
    return _ALU[name]


def tensor_tensor(data1: Any, data2: Any, op: Any, *, dtype: Any = None, mask: Any = None,
                  engine: Any = engine.unknown, **kwargs: Any) -> Tile:
    a = ops.tile_operand(data1, "tensor_tensor", "data1")
    b = ops.tile_operand(data2, "tensor_tensor", "data2")
    ops.check_partitions("tensor_tensor", a, b)
    return nl._elementwise("tensor_tensor", _alu(op, "tensor_tensor"), (a, b), dtype, mask)


def _scalar_operand(x: Any, data: Tile, api: str) -> Any:
    if isinstance(x, Tile):
        ops.tile_operand(x, api, "operand")
        if x.shape[0] != data.shape[0] or int(np.prod(x.shape[1:])) != 1:
            raise ValueError(f"'{api}' operand must be a scalar or a [{data.shape[0]}, 1] vector, got "
                             f"{list(x.shape)}")
    return x


def tensor_scalar(data: Any, op0: Any, operand0: Any, reverse0: bool = False, op1: Any = None,
                  operand1: Any = None, reverse1: bool = False, *, dtype: Any = None, mask: Any = None,
                  engine: Any = engine.unknown, **kwargs: Any) -> Tile:
    data = ops.tile_operand(data, "tensor_scalar", "data")
    f0 = _alu(op0, "tensor_scalar")
    o0 = _scalar_operand(operand0, data, "tensor_scalar")
    first = nl._elementwise("tensor_scalar", (lambda a, b: f0(b, a)) if reverse0 else f0, (data, o0), dtype, mask)
    if op1 is None:
        return first
    f1 = _alu(op1, "tensor_scalar")
    o1 = _scalar_operand(operand1, data, "tensor_scalar")
    return nl._elementwise("tensor_scalar", (lambda a, b: f1(b, a)) if reverse1 else f1, (first, o1),
                           dtype or first.dtype, mask)


def tensor_reduce(op: Any, data: Any, axis: Any, *, mask: Any = None, dtype: Any = None, negate: bool = False,
                  keepdims: bool = False, **kwargs: Any) -> Tile:
    name = _op_name(op)
    if name not in _REDUCE:
        raise NkiUnsupported(f"reduction operator {name} in nisa.tensor_reduce")
    fn = _REDUCE[name]
    red = (lambda a, axis, keepdims: -fn(a, axis=axis, keepdims=keepdims)) if negate else fn
    return nl._reduce("tensor_reduce", red, data, axis, dtype, mask, keepdims)


def tensor_copy(src: Any, *, mask: Any = None, dtype: Any = None, engine: Any = engine.unknown,
                **kwargs: Any) -> Tile:
    return nl.copy(src, mask=mask, dtype=dtype)


def reciprocal(data: Any, *, dtype: Any = None, mask: Any = None, **kwargs: Any) -> Tile:
    return nl.reciprocal(data, dtype=dtype, mask=mask)  # type: ignore[attr-defined]


_ACT = {"copy": lambda a: a, "identity": lambda a: a}


def _activation_fn(op: Any) -> Any:
    name = _op_name(op)
    if name in _ACT:
        return _ACT[name]
    if name in nl.UNARY:
        return nl.UNARY[name]
    raise NkiUnsupported(f"activation function {name} in nisa.activation")


def activation(op: Any, data: Any, *, bias: Any = None, scale: Any = 1.0, reduce_op: Any = None,
               reduce_res: Any = None, reduce_cmd: Any = None, mask: Any = None, dtype: Any = None,
               **kwargs: Any) -> Tile:
    """``op(data * scale + bias)`` on ScalarE; bias a [P, 1] vector, scale a scalar or [P, 1] fp32 vector."""
    if reduce_op is not None or reduce_res is not None:
        raise NkiUnsupported("nisa.activation with reduce_op/reduce_res")
    data = ops.tile_operand(data, "activation", "data")
    fn = _activation_fn(op)
    if isinstance(bias, Tile):
        if bias.dtype not in (D.float32, D.float16, D.bfloat16):
            raise violation("err_activation_bias_invalid_type",
                            "Bias parameter of activation or activation_reduce must be a vector of type float32, "
                            "float16, or bfloat16.", exc_type=TypeError, documented=True, kind="dtype_rule")
        _scalar_operand(bias, data, "activation")
    if isinstance(scale, Tile):
        if scale.dtype != D.float32:
            raise violation("err_activation_scale_invalid_type",
                            "Scale parameter of activation or activation_reduce must be a scalar or vector of "
                            "type float32.", exc_type=TypeError, documented=True, kind="dtype_rule")
        if scale.shape[0] != data.shape[0] or int(np.prod(scale.shape[1:])) != 1:
            raise violation("err_activation_scale_scalar_or_vector",
                            "Scale parameter of activation must be either a scalar value or a 1D vector spanning "
                            "the partition dimension.", exc_type=ValueError, documented=True, kind="shape_rule")
    b = 0.0 if bias is None else bias
    return nl._elementwise("activation", lambda a, s, c: fn(a * s + c), (data, scale, b),
                           dtype or data.dtype, mask)


def memset(shape: Any, value: Any, dtype: Any, *, mask: Any = None, engine: Any = engine.unknown,
           **kwargs: Any) -> Tile:
    return nl._filled("memset", shape, value, dtype, None, "")


def iota(expr: Any, dtype: Any, *, mask: Any = None, **kwargs: Any) -> Tile:
    vals = expr.v if isinstance(expr, Index) else np.asarray(int(expr)).reshape(1, 1)
    if vals.ndim < 2:
        raise violation("err_1d_arange_not_supported", "iota takes a 2D index expression (nl.arange(n)[None, :])",
                        exc_type=IndexError, documented=False, kind="1d_arange")
    m = ops.active_mask(mask, vals.shape)
    return ops.result(vals, True, vals.shape, dtype, m, "iota")


def dma_copy(*, dst: Any, src: Any, mask: Any = None, dst_rmw_op: Any = None, oob_mode: Any = oob_mode.error,
             dge_mode: Any = dge_mode.unknown, **kwargs: Any) -> None:
    """Copy (with a cast) between HBM and SBUF; ``dst_rmw_op=np.add`` accumulates into ``dst``."""
    dst = ops.tile_operand(dst, "dma_copy", "dst", ("hbm", "sbuf"))
    src = ops.tile_operand(src, "dma_copy", "src", ("hbm", "sbuf"))
    if oob_mode != oob_mode.error:
        raise NkiUnsupported("dma_copy oob_mode=skip")
    m = ops.active_mask(mask, dst.shape)
    vals, ok = src.read(ops.sub_mask(m, src.shape, dst.shape), what="dma_copy")
    try:
        np.broadcast_shapes(src.shape, dst.shape)
    except ValueError as exc:
        raise ValueError(f"dma_copy: src {list(src.shape)} does not fit dst {list(dst.shape)}") from exc
    if dst_rmw_op is not None:
        if _op_name(dst_rmw_op) != "add":
            raise NkiUnsupported(f"dma_copy dst_rmw_op={_op_name(dst_rmw_op)}")
        RECORDER.op("dma_copy_accumulate")
        cur, cok = dst.read(m, what="dma_copy (accumulate)", accumulate=True)
        with np.errstate(all="ignore"):
            vals = cur.astype(np.float32) + np.broadcast_to(vals, dst.shape).astype(np.float32)
        ok = cok & np.broadcast_to(ok, dst.shape)
        dst.write(vals, m, what="dma_copy (accumulate)", accumulate=True, defined=ok)
        return
    RECORDER.op("dma_copy")
    dst.write(vals, m, what="dma_copy", defined=ok)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NkiUnsupportedName(f"nki.isa.{name}")
