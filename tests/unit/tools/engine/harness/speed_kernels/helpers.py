"""Device helpers in a module of their own: one calls a builtin through a module-level alias (patched in
this module's globals, not the kernel's), one reduces with a combine function (tl.reduce, patched)."""

import triton
import triton.language as tl
from triton.language import maximum as tl_maximum


@triton.jit
def _combine_max(a, b):
    return tl_maximum(a, b)


@triton.jit
def row_max(x):
    return tl.reduce(x, 0, _combine_max)
