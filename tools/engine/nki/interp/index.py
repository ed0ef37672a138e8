"""Index grids: ``nl.arange``/``nl.mgrid`` values, affine expressions over them, and masks.

An ``Index`` holds the concrete integer values of an affine expression (loop variables are plain
ints here, since loops run eagerly). Comparing an ``Index`` gives a ``Mask``, the compile-time
predicate NKI APIs accept as ``mask=``. Neither may steer Python control flow (NKI error
``err_control_flow_condition_depending_on_arange``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tools.engine.nki.interp.recorder import violation


def _control_flow_error() -> BaseException:
    return violation("err_control_flow_condition_depending_on_arange",
                     "Control-flow depending on `nl.arange` or `nl.mgrid` is not supported",
                     documented=True, kind="control_flow_on_index")


def _val(x: Any) -> Any:
    if isinstance(x, Index):
        return x.v
    if isinstance(x, Mask):
        return x.m
    return x


class Index:
    """An affine expression of index grids, evaluated."""

    __array_priority__ = 100

    def __init__(self, values: Any) -> None:
        self.v = np.asarray(values, dtype=np.int64)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.v.shape)

    @property
    def ndim(self) -> int:
        return self.v.ndim

    def __getitem__(self, key: Any) -> Index:
        return Index(self.v[key])

    def _bin(self, other: Any, fn: Any) -> Any:
        if not isinstance(other, (Index, int, np.integer)):
            return NotImplemented
        return Index(fn(self.v, _val(other)))

    def __add__(self, o: Any) -> Any: return self._bin(o, np.add)
    def __radd__(self, o: Any) -> Any: return self._bin(o, lambda a, b: b + a)
    def __sub__(self, o: Any) -> Any: return self._bin(o, np.subtract)
    def __rsub__(self, o: Any) -> Any: return self._bin(o, lambda a, b: b - a)
    def __mul__(self, o: Any) -> Any: return self._bin(o, np.multiply)
    def __rmul__(self, o: Any) -> Any: return self._bin(o, lambda a, b: b * a)
    def __floordiv__(self, o: Any) -> Any: return self._bin(o, np.floor_divide)
    def __mod__(self, o: Any) -> Any: return self._bin(o, np.mod)
    def __neg__(self) -> Index: return Index(-self.v)

    def _cmp(self, other: Any, fn: Any) -> Any:
        if not isinstance(other, (Index, int, np.integer)):
            return NotImplemented
        return Mask(fn(self.v, _val(other)))

    def __lt__(self, o: Any) -> Any: return self._cmp(o, np.less)
    def __le__(self, o: Any) -> Any: return self._cmp(o, np.less_equal)
    def __gt__(self, o: Any) -> Any: return self._cmp(o, np.greater)
    def __ge__(self, o: Any) -> Any: return self._cmp(o, np.greater_equal)
    def __eq__(self, o: object) -> Any: return self._cmp(o, np.equal)  # type: ignore[override]
    def __ne__(self, o: object) -> Any: return self._cmp(o, np.not_equal)  # type: ignore[override]
    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise _control_flow_error()

    def __index__(self) -> int:
        raise _control_flow_error()

    def __setitem__(self, key: Any, value: Any) -> None:
        raise violation("err_cannot_assign_to_index", "'index' tensor does not support item assignment",
                        exc_type=TypeError, documented=True, kind="assign_to_index")

    def __repr__(self) -> str:
        return f"Index(shape={self.shape})"


class Mask:
    """A predicate over index grids (``mask=`` argument)."""

    __array_priority__ = 100

    def __init__(self, m: Any) -> None:
        self.m = np.asarray(m, dtype=bool)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.m.shape)

    def _bin(self, other: Any, fn: Any) -> Any:
        if not isinstance(other, (Mask, bool, np.bool_)):
            return NotImplemented
        return Mask(fn(self.m, _val(other)))

    def __and__(self, o: Any) -> Any: return self._bin(o, np.logical_and)
    __rand__ = __and__
    def __or__(self, o: Any) -> Any: return self._bin(o, np.logical_or)
    __ror__ = __or__
    def __xor__(self, o: Any) -> Any: return self._bin(o, np.logical_xor)
    def __invert__(self) -> Mask: return Mask(~self.m)

    def __bool__(self) -> bool:
        raise _control_flow_error()

    def __repr__(self) -> str:
        return f"Mask(shape={self.shape})"


class MGrid(tuple):
    """``nl.mgrid[...]``: unpackable, and named ``.p`` / ``.x`` / ``.y`` / ``.z`` as in the docs."""

    @property
    def p(self) -> Index: return self[0]
    @property
    def x(self) -> Index: return self[1]
    @property
    def y(self) -> Index: return self[2]
    @property
    def z(self) -> Index: return self[3]


class _MGridMaker:
    def __getitem__(self, key: Any) -> MGrid:
        keys = key if isinstance(key, tuple) else (key,)
        for k in keys:
            if not isinstance(k, slice) or (k.step not in (None, 1) and not isinstance(k.step, int)):
                raise TypeError("nl.mgrid takes integer slices start:stop[:step]")
        grids = np.mgrid[keys]
        if len(keys) == 1:
            grids = grids[None]
        return MGrid(Index(g) for g in grids)


mgrid = _MGridMaker()


def arange(*args: int) -> Index:
    if not 1 <= len(args) <= 3:
        raise TypeError("nl.arange(stop) or nl.arange(start, stop[, step])")
    return Index(np.arange(*(int(a) for a in args)))


def mask_array(mask: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    """The mask broadcast to ``shape`` (``None``: every element is active)."""
    if mask is None:
        return None
    if isinstance(mask, (bool, np.bool_)):
        return np.full(shape, bool(mask))
    m = mask.m if isinstance(mask, Mask) else np.asarray(mask, dtype=bool)
    try:
        return np.broadcast_to(m, shape)
    except ValueError as exc:
        raise violation("err_mask_shape", f"mask of shape {list(m.shape)} does not broadcast to the tile "
                        f"shape {list(shape)}", documented=False, kind="mask_shape",
                        doc=None) from exc
