"""Shared machinery of compute APIs: operands, masks, dtype of results, writing result tiles."""

from __future__ import annotations

from typing import Any

import numpy as np

from tools.nki import version as V
from tools.nki.interp import dtypes as D
from tools.nki.interp.index import Index, Mask, mask_array
from tools.nki.interp.recorder import RECORDER, violation
from tools.nki.interp.tensor import Tile, allocate, psum, sbuf

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
