"""Where the Triton interpreter runs code differently from compiled Triton, the compiler's behaviour.

Code that compiles and runs on a GPU must not fail a review for what TRITON_INTERPRET=1 does not do
(the interpreter's limits are never the kernel's failure). Each shim below closes one gap whose GPU
semantics are unambiguous, on every supported Triton (3.4 to 3.8: none of them closes these gaps):

* A Python ``float`` kernel argument: compiled Triton specializes it as an ``fp32`` scalar (a 0-d
  tensor: ``scale.to(tl.float32)`` works and ``x_fp16 * scale`` computes in fp32); the interpreter
  passes the Python float itself (``AttributeError: 'float' object has no attribute 'to'``) and lets
  NumPy's scalar rules keep fp16. ``_implicit_cvt`` wraps it as the fp32 scalar the compiler makes.
* A module-level alias of a ``triton.language`` builtin (``triton_cast = tl.cast``, ``from
  triton.language import cast``): the compiler resolves the global to the builtin and calls it with
  its semantic; the interpreter patches only the attributes of the ``tl`` modules, so the alias raises
  "Did you forget to add @triton.jit ?". The launch patches the kernel's globals that hold a builtin
  the same way, and restores them after the launch where the interpreter restores its own patches.
* A failing ``tl.static_assert``: the compiler raises ``CompileTimeAssertionFailure``, which the
  autotuner catches to prune the config (as it does ``OutOfResources``); the interpreter raises a bare
  ``AssertionError('')``, indistinguishable from a crash. It raises :class:`CompileTimeAssertionFailure`
  with the compiler's name, so a review can tell a config the autotuner would prune.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _float_scalar(interp: Any, value: float) -> Any:
    import numpy as np
    import triton.language as tl

    return tl.tensor(interp.TensorHandle(np.array([value], dtype=np.float32), tl.float32), tl.float32)


def patch_float_args(interp: Any) -> Callable[[], None] | None:
    """Make the interpreter pass a Python float argument as compiled Triton does (an fp32 scalar);
    returns the function that undoes it, or None when this interpreter has no ``_implicit_cvt``."""
    original = getattr(interp, "_implicit_cvt", None)
    if original is None or getattr(original, "_kreview_gap", False) or not hasattr(interp, "TensorHandle"):
        return None

    def _implicit_cvt(arg: Any) -> Any:
        if isinstance(arg, float):
            return _float_scalar(interp, arg)
        return original(arg)

    _implicit_cvt._kreview_gap = True  # type: ignore[attr-defined]
    interp._implicit_cvt = _implicit_cvt
    return lambda: setattr(interp, "_implicit_cvt", original)


class CompileTimeAssertionFailure(AssertionError):
    """A ``tl.static_assert`` that failed: compiled Triton's error of that name, under the interpreter."""


def _static_assert(cond: Any, msg: Any = "", *args: Any, **kwargs: Any) -> None:
    value = getattr(cond, "value", cond)
    if not value:
        text = getattr(msg, "value", msg)
        raise CompileTimeAssertionFailure(f"tl.static_assert failed at compile time: {text}".rstrip(": "))


class _Globals:
    """A function's globals seen as attributes, so the interpreter's patch scope can set and restore
    entries of the dict as it does attributes of ``tl``."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        object.__setattr__(self, "_ns", namespace)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._ns[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self._ns[name] = value

    def __delattr__(self, name: str) -> None:
        self._ns.pop(name, None)


def _alias_builtins(interp: Any, fn: Any, scope: Any) -> None:
    import triton.language as tl

    namespace = getattr(fn, "__globals__", None)
    if not isinstance(namespace, dict):
        return
    aliases = [(name, value) for name, value in list(namespace.items())
               if not name.startswith("__") and callable(value) and tl.core.is_builtin(value)]
    if not aliases:
        return
    holder = _Globals(namespace)
    for name, member in aliases:
        if scope is not None and hasattr(scope, "set_attr"):
            interp._patch_attr(holder, name, member, interp.interpreter_builder, scope)
        else:  # Triton 3.4/3.5 patch for good, without a scope
            interp._patch_attr(holder, name, member, interp.interpreter_builder)


def patch_builtin_aliases(interp: Any) -> Callable[[], None] | None:
    """Patch a kernel's global aliases of ``tl`` builtins whenever the interpreter patches ``tl`` for
    it; returns the function that undoes it, or None when this interpreter's internals differ."""
    original = getattr(interp, "_patch_lang", None)
    if (original is None or getattr(original, "_kreview_gap", False) or not hasattr(interp, "_patch_attr")
            or not hasattr(interp, "interpreter_builder")):
        return None

    def _patch_lang(fn: Any, *rest: Any, **kw: Any) -> Any:
        import triton.language as tl

        scope = original(fn, *rest, **kw)
        _alias_builtins(interp, fn, scope)
        for lang in (tl, tl.core):
            if getattr(lang, "static_assert", None) is not None:
                if scope is not None and hasattr(scope, "set_attr"):
                    scope.set_attr(lang, "static_assert", _static_assert)
                else:
                    lang.static_assert = _static_assert
        return scope

    _patch_lang._kreview_gap = True  # type: ignore[attr-defined]
    interp._patch_lang = _patch_lang
    return lambda: setattr(interp, "_patch_lang", original)


def patch(interp: Any) -> Callable[[], None]:
    """Every shim of this module; returns the function that undoes them all."""
    undo = [u for u in (patch_float_args(interp), patch_builtin_aliases(interp)) if u is not None]

    def restore() -> None:
        for u in reversed(undo):
            u()

    return restore
