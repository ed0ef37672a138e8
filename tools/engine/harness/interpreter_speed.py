"""The Triton interpreter's patching of ``triton.language``, skipped where it would change nothing.

The interpreter patches ``tl`` (every builtin, the tensor class, ``range``, ``reduce``...) before each
launch, and again at every call of a ``@triton.jit`` helper inside a kernel: ``tl.max`` and ``tl.sum`` are
such helpers, so a row softmax patches the language twice per program. Each patch walks
``inspect.getmembers`` of four namespaces. On a 16 x 75 softmax the patching was 39 % of an interpreted
call (10 ms of 26 ms: benchmarks/interpreter_patching.py), and the many-calls probe makes hundreds of calls.

A helper call's patch is never undone (the interpreter drops its scope), and it repeats the patch already in
place: every builtin it would replace was replaced by the previous patch (a replaced member is no builtin,
so no scan finds it again), and the other attributes it sets are the same functions made afresh. So a
patch is skipped when the namespaces hold exactly the objects the previous patch left (same names, same
order, the same objects by identity; the kept state holds them, so no id is reused), and the modules it
would patch and the function's own globals (where interpreter_gaps.py patches aliases of builtins) were
patched since. This wraps interpreter_gaps.py's patch, so that one is skipped only with the rest. A launch's
own patch, which starts from the restored language, always runs.

The interpreter also maps a Triton dtype to its numpy dtype (``_get_np_dtype``) by building a table of
eighteen numpy dtypes on every call, several times per operation of every program: on a kernel that loops
over a row's columns that was about a tenth of an interpreted call. ``memo_np_dtype`` keeps each answer,
asking the interpreter's own function once per dtype (a block type's answer is its element type's, as the
function itself decides; a dtype without a hash, such as a pointer type, is asked every time). Answers are
kept from the first ask: a submission that later rebinds triton.language's dtypes is not followed (it
would get no compiled Triton's answers either). Only the time changes: no verdict can depend on this
module.
"""

from __future__ import annotations

import contextlib
import inspect
import operator
from collections.abc import Callable
from typing import Any

State = tuple[tuple[tuple[str, ...], tuple[Any, ...]], ...]


def _namespaces(tl: Any) -> list[Any]:
    """Every namespace the interpreter's ``_patch_lang`` sets attributes on (Triton 3.4 to 3.8)."""
    classes = [tl.tensor, tl.dtype, getattr(tl.core, "tensor_descriptor_base", None)]
    out: list[Any] = [vars(tl), vars(tl.core), vars(tl.math)]
    for cls in classes:
        if isinstance(cls, type):
            out += [vars(c) for c in cls.__mro__ if c is not object]
    return out


def _state(namespaces: list[Any]) -> State:
    return tuple((tuple(ns), tuple(ns.values())) for ns in namespaces)


def _same(a: State, b: State) -> bool:
    return len(a) == len(b) and all(
        keys_a == keys_b and len(values_a) == len(values_b) and all(map(operator.is_, values_a, values_b))
        for (keys_a, values_a), (keys_b, values_b) in zip(a, b))


def patch_repeats(interp: Any) -> Callable[[], None] | None:
    """Wrap the interpreter's ``_patch_lang`` so a patch that would repeat the one in place is skipped;
    returns the function that undoes it, or None where this interpreter's internals differ."""
    original = getattr(interp, "_patch_lang", None)
    if original is None or getattr(original, "_kreview_repeats", False):
        return None
    try:
        import triton.language as tl

        source = inspect.getsource(interp)  # the module's: ``original`` may be interpreter_gaps.py's wrapper
        namespaces = _namespaces(tl)
    except (ImportError, AttributeError, OSError, TypeError):
        return None
    # the shape this relies on: the modules patched are those of the function's globals among tl, tl.core
    if "def _patch_lang(fn" not in source or "value in [tl, tl.core]" not in source:
        return None
    scope_class = getattr(interp, "_LangPatchScope", None)
    # the state the last patch left, the modules patched and the function globals handled since it was
    # reached (held, so that no id is reused while kept)
    last: dict[str, Any] = {"state": None, "patched": {}}

    def _patch_lang(fn: Any, *rest: Any, **kw: Any) -> Any:
        namespace = getattr(fn, "__globals__", None)
        langs = [v for v in namespace.values() if v is tl or v is tl.core] if isinstance(namespace, dict) else []
        in_place = last["state"] is not None and _same(_state(namespaces), last["state"])
        if in_place and langs and all(id(m) in last["patched"] for m in (*langs, namespace)):
            return scope_class() if scope_class is not None else None
        patched = last["patched"] if in_place else {}
        last["state"], last["patched"] = None, {}
        scope = original(fn, *rest, **kw)
        patched.update({id(m): m for m in (*langs, namespace) if m is not None})
        last["state"], last["patched"] = _state(namespaces), patched
        return scope

    _patch_lang._kreview_repeats = True  # type: ignore[attr-defined]
    interp._patch_lang = _patch_lang
    return lambda: setattr(interp, "_patch_lang", original)


def memo_np_dtype(interp: Any) -> Callable[[], None] | None:
    """Keep the interpreter's ``_get_np_dtype`` answers, one per Triton dtype; returns the function that
    undoes it, or None where this interpreter's function differs from the one this relies on."""
    original = getattr(interp, "_get_np_dtype", None)
    if original is None or getattr(original, "_kreview_memo", False):
        return None
    try:
        import triton.language as tl

        source = inspect.getsource(original)
        block = tl.block_type
    except (ImportError, AttributeError, OSError, TypeError):
        return None
    # the shape this relies on: a pointer (or a block of them) is uint64, any other block its element's dtype
    needed = ("isinstance(tt_dtype, tl.pointer_type)", "isinstance(tt_dtype, tl.block_type)", "tt_dtype.element_ty")
    if not all(part in source for part in needed):
        return None
    kept: dict[Any, Any] = {}

    def _get_np_dtype(tt_dtype: Any) -> Any:
        key = tt_dtype.element_ty if isinstance(tt_dtype, block) else tt_dtype
        try:
            return kept[key]
        except (KeyError, TypeError):  # not asked yet, or no hash (a pointer type: asked every time)
            pass
        # Rationale: asked outside the handler and with the dtype as given, so an error is the interpreter's
        # own, raised from its own line with nothing chained to it (a traceback is evidence)
        answer = original(tt_dtype)
        with contextlib.suppress(TypeError):
            kept[key] = answer
        return answer

    _get_np_dtype._kreview_memo = True  # type: ignore[attr-defined]
    interp._get_np_dtype = _get_np_dtype
    return lambda: setattr(interp, "_get_np_dtype", original)


def patch(interp: Any) -> Callable[[], None]:
    """Both of this module's speed-ups (after interpreter_gaps.py's patch, which the repeats skip wraps);
    returns the function that undoes them, in reverse order."""
    undo = [u for u in (patch_repeats(interp), memo_np_dtype(interp)) if u is not None]

    def restore() -> None:
        for u in reversed(undo):
            u()

    return restore
