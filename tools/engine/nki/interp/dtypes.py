"""NKI data types (NumPy dtypes, ml_dtypes for bfloat16/fp8) and the documented type promotion."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from tools.engine.nki.interp.errors import NkiUnsupported

bfloat16 = np.dtype(ml_dtypes.bfloat16)
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
float8_e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
int8, int16, int32 = np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32)
uint8, uint16, uint32 = np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32)
bool_ = np.dtype(np.bool_)

FLOAT8 = (float8_e4m3, float8_e5m2, float8_e4m3fn)
FLOATS = (float32, float16, bfloat16, *FLOAT8)
INTS = (int8, int16, int32, uint8, uint16, uint32)
SUPPORTED = (*FLOATS, *INTS, bool_)
MATMUL_INPUTS = (float32, float16, bfloat16, *FLOAT8)

_BY_NAME = {str(d): d for d in SUPPORTED} | {"bool": bool_, "float": float32, "int": int32}


def as_dtype(value: Any) -> np.dtype:
    """Accept NumPy/ml_dtypes dtypes and scalar types, names, and torch dtypes."""
    if value is None:
        raise TypeError("dtype is required")
    if isinstance(value, str):
        name = value.removeprefix("torch.")
        if name in _BY_NAME:
            return _BY_NAME[name]
        if name == "tfloat32":
            raise NkiUnsupported("dtype tfloat32")
    mod = type(value).__module__
    if mod.startswith("torch"):
        return as_dtype(str(value))
    try:
        dt = np.dtype(value)
    except TypeError as exc:
        raise TypeError(f"not a NKI dtype: {value!r}") from exc
    if dt == np.float64:
        return float32
    if dt == np.int64:
        return int32
    if dt not in SUPPORTED:
        raise TypeError(f"dtype {dt} is not a supported NKI data type")
    return dt


def is_float(dt: np.dtype) -> bool:
    return dt in FLOATS


def is_int(dt: np.dtype) -> bool:
    return dt in INTS or dt == bool_


def weak_scalar_dtype(value: Any) -> np.dtype:
    """common_fields "Weakly typed scalar type inference": bool->uint8, int->int32, float->float32."""
    if isinstance(value, (bool, np.bool_)):
        return uint8
    if isinstance(value, (int, np.integer)):
        return as_dtype(value.dtype) if isinstance(value, np.integer) else int32
    if isinstance(value, np.floating):
        return as_dtype(value.dtype)
    return float32


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """common_fields "NKI Type Promotion"."""
    a = uint8 if a == bool_ else a
    b = uint8 if b == bool_ else b
    if a == b:
        return a
    fa, fb = is_float(a), is_float(b)
    if fa != fb:
        return a if fa else b
    if fa:
        if float32 in (a, b):
            return float32
        pair = {a, b}
        if pair == {float16, bfloat16}:
            return float32
        if pair <= set(FLOAT8):
            return bfloat16
        return a if a.itemsize > b.itemsize else b
    if {a, b} == {int32, uint32}:
        return float32
    out = np.promote_types(a, b)
    return float32 if out.itemsize > 4 else out


def compute_dtype(out: np.dtype) -> np.dtype:
    """Engines compute floats in fp32 (arch guide, VectorE/ScalarE); integers are kept exact."""
    return np.dtype(np.float32) if is_float(out) else np.dtype(np.int64)


def uninit_fill(dt: np.dtype) -> Any:
    """The value fresh memory holds: NaN for floats (as the AWS simulator does), a pattern for ints."""
    if is_float(dt):
        return np.nan
    return {1: 0x5A, 2: 0x5A5A, 4: 0x5A5A5A5A}[dt.itemsize] if dt != bool_ else True
