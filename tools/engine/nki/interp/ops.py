"""Shared machinery of compute APIs: operands, masks, dtype of results, writing result tiles."""

from __future__ import annotations

from typing import Any

import numpy as np

import tools.engine.nki.version as V
import tools.engine.nki.interp.dtypes as D
from tools.engine.nki.interp.index import Index, Mask, mask_array
from tools.engine.nki.interp.recorder import RECORDER, violation
from tools.engine.nki.interp.tensor import Tile, allocate, psum, sbuf

ONCHIP = ("sbuf", "psum")


def memory_error(api: str, operand: str, want: str, got: str) -> BaseException:
    return violation("err_unsupported_memory",
                     f"Expected operand '{operand}' of '{api}' to be in address space '{want}', but got a tile in "
                     f"'{got}' instead.", documented=True, kind="memory_space", api=api)


def tile_operand(x: Any, api: str, name: str, spaces: tuple[str, ...] = ONCHIP) -> Tile:
    if not isinstance(x, Tile):
        raise TypeError(f"operand '{name}' of '{api}' must be a tile, got {type(x).__name__}")
    if x.store.space not in spaces:
        raise memory_error(api, name, "|".join(sorted(spaces, reverse=True)), x.store.space)
    return x


def is_scalar(x: Any) -> bool:
    return isinstance(x, (int, float, bool, np.number, np.bool_))


def operand(x: Any, api: str, name: str) -> Tile | Any:
    if isinstance(x, Tile):
        return tile_operand(x, api, name)
    if is_scalar(x):
        return x
    if isinstance(x, (Index, Mask)):
        raise TypeError(f"operand '{name}' of '{api}' is an index expression; convert it with nisa.iota")
    raise TypeError(f"operand '{name}' of '{api}' must be a tile or a scalar, got {type(x).__name__}")


def dtype_of(x: Any) -> np.dtype:
    return x.dtype if isinstance(x, Tile) else D.weak_scalar_dtype(x)


def shape_of(x: Any) -> tuple[int, ...]:
    return x.shape if isinstance(x, Tile) else ()


def broadcast(api: str, *xs: Any, operator: bool = False) -> tuple[int, ...]:
    shapes = [shape_of(x) for x in xs]
    try:
        out = np.broadcast_shapes(*shapes)
    except ValueError as exc:
        raise ValueError(f"operand shapes {[list(s) for s in shapes]} of '{api}' do not broadcast") from exc
    tiles = [s for s in shapes if s]
    if operator and len(tiles) > 1 and len({s[0] for s in tiles}) > 1:
        raise violation("operator_partition_broadcast",
                        f"Partition dimension broadcasting is not supported on operator overloads ({api} of "
                        f"{[list(s) for s in tiles]}); use nki.language APIs (nl.add, nl.multiply, ...) or "
                        "broadcast_to", documented=False, kind="operator_partition_broadcast",
                        doc=V.PAGES["known_issues"])
    return tuple(out)


def sub_mask(m: np.ndarray | None, in_shape: tuple[int, ...], out_shape: tuple[int, ...]) -> np.ndarray | None:
    """The elements of an input (broadcast to ``out_shape``) that active outputs use."""
    if m is None or not in_shape:
        return None
    lead = len(out_shape) - len(in_shape)
    axes = tuple(i for i in range(len(out_shape))
                 if i < lead or (in_shape[i - lead] == 1 and out_shape[i] != 1))
    r = np.any(m, axis=axes, keepdims=True) if axes else m
    return r.reshape(r.shape[lead:]) if lead else r


def values(x: Any, m: np.ndarray | None, out_shape: tuple[int, ...], api: str) -> tuple[Any, Any]:
    """(values, defined) of an operand; scalars are always defined."""
    if isinstance(x, Tile):
        v, ok = x.read(sub_mask(m, x.shape, out_shape), what=api)
        return v, ok
    return x, True


def as_compute(v: Any, out: np.dtype) -> Any:
    ct = D.compute_dtype(out)
    if isinstance(v, np.ndarray):
        with np.errstate(invalid="ignore", over="ignore"):
            return v.astype(ct)
    return ct.type(v) if not isinstance(v, (bool, np.bool_)) else ct.type(int(v))


def result(vals: Any, defined: Any, shape: tuple[int, ...], dtype: Any, m: np.ndarray | None, api: str,
           buffer: Any = None, defer: bool = False) -> Tile:
    """A new on-chip tile holding ``vals`` where the mask is active (elsewhere: not written)."""
    RECORDER.op(api)
    dt = D.as_dtype(dtype)
    out = allocate(shape, dt, buffer or sbuf, api=api, defer=defer)
    with np.errstate(invalid="ignore", over="ignore"):
        out.write(np.broadcast_to(np.asarray(vals), shape), m, what=api, defined=defined)
    return out


def active_mask(mask: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    return mask_array(mask, shape)


def check_partitions(api: str, *tiles: Tile) -> None:
    parts = [t.shape[0] for t in tiles if isinstance(t, Tile)]
    if len(set(parts)) > 1:
        names = ", ".join(f"{t.name}{list(t.shape)}" for t in tiles if isinstance(t, Tile))
        raise violation("err_num_partition_mismatch",
                        f"number of partitions (dimension 0 size of a tile) mismatch in parameters ({names}) of "
                        f"'{api}'", documented=True, kind="partition_mismatch")


__all__ = ["psum", "sbuf"]


def _limit(code: str, message: str) -> BaseException:
    return violation(code, message, documented=False, kind="matmul_tile_limit", doc=V.PAGES["arch"])


def matmul_core(api: str, stationary: Tile, moving: Tile, mask: Any) -> Tile:
    """``stationary.T @ moving`` on TensorE: operands in SBUF, fp32 result in one PSUM bank."""
    for name, t in (("stationary", stationary), ("moving", moving)):
        tile_operand(t, api, name, ("sbuf",))
        if t.ndim != 2:
            raise ValueError(f"'{api}' takes 2D tiles; {name} is {list(t.shape)}")
        if t.dtype not in D.MATMUL_INPUTS:
            raise violation("matmul_dtype",
                            f"'{api}' {name} tile has dtype {t.dtype}; the Tensor Engine takes "
                            "float8_e4m3/float8_e5m2/bfloat16/float16/tfloat32/float32", exc_type=TypeError,
                            documented=False, kind="dtype_rule", doc=V.PAGES["isa"])
    k, m = stationary.shape
    k2, n = moving.shape
    if k > V.PMAX or k2 > V.PMAX:
        raise _limit("matmul_partition_limit",
                     f"'{api}': contraction (partition) size {max(k, k2)} exceeds {V.PMAX}: stationary and moving "
                     "tiles must have at most 128 partitions")
    if k != k2:
        raise violation("err_num_partition_mismatch",
                        f"number of partitions (dimension 0 size of a tile) mismatch in parameters "
                        f"(stationary{list(stationary.shape)}, moving{list(moving.shape)}) of '{api}'",
                        documented=True, kind="partition_mismatch")
    if m > V.GEMM_STATIONARY_FMAX:
        raise _limit("matmul_stationary_fmax",
                     f"'{api}': stationary tile free size {m} exceeds nki.language.tile_size.gemm_stationary_fmax "
                     f"({V.GEMM_STATIONARY_FMAX})")
    if n > V.GEMM_MOVING_FMAX:
        raise _limit("matmul_moving_fmax",
                     f"'{api}': moving tile free size {n} exceeds nki.language.tile_size.gemm_moving_fmax "
                     f"({V.GEMM_MOVING_FMAX}); one matmul writes a single 2 KiB PSUM bank")
    mm = active_mask(mask, (m, n))
    sv, sok = stationary.read(what=api)
    mv, mok = moving.read(what=api)
    with np.errstate(all="ignore"):
        out = sv.astype(np.float32).T @ mv.astype(np.float32)
    ok = np.all(sok, axis=0)[:, None] & np.all(mok, axis=0)[None, :]
    return result(out, ok, (m, n), D.float32, mm, api, buffer=psum, defer=True)
