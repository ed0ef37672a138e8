"""Bugs of older Triton interpreters that fail a correct kernel, fixed in a later Triton release.

What the library gets wrong is never the kernel's failure, so where the reviewer runs an older
interpreter it carries the later release's fix, one small patch per bug, each applied only when the
interpreter's own source still shows the bug:

* ``tl.tensor.__index__`` (Triton 3.4 to 3.6) is ``int(self.handle.data)``; a scalar's data is a
  one-element 1-D array, which NumPy 2.4 no longer converts to an int ("only 0-dimensional arrays can
  be converted to Python scalars"), so ``for start in range(0, n_cols, BLOCK)`` with a runtime bound
  raised an InterpreterError. Triton 3.7 squeezes the array first; so does the patch.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

_INDEX_BUG = "int(self.handle.data)"  # 3.7: int(self.handle.data.squeeze())


def _index(self: Any) -> int:
    return int(self.handle.data.squeeze())


def patch_index(interp: Any) -> Callable[[], None] | None:
    """Make ``tl.tensor.__index__`` squeeze its one-element array on an interpreter that does not;
    returns the function that undoes it, or None when the interpreter needs no fix."""
    original = getattr(interp, "_patch_lang_tensor", None)
    try:
        buggy = original is not None and _INDEX_BUG in inspect.getsource(original)
    except (OSError, TypeError):
        buggy = False
    if not buggy:
        return None

    def _patch_lang_tensor(tensor: Any, *scope: Any) -> Any:
        out = original(tensor, *scope)
        if scope:  # Triton 3.6 restores what it patched after the launch through this scope
            scope[0].set_attr(tensor, "__index__", _index)
        else:
            tensor.__index__ = _index
        return out

    interp._patch_lang_tensor = _patch_lang_tensor
    return lambda: setattr(interp, "_patch_lang_tensor", original)
