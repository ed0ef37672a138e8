"""``triton_launches``: every Triton kernel launch during the call, as the launcher saw it.

Wraps ``JITFunction.run`` (compiled mode) and the interpreter's launch entry (TRITON_INTERPRET=1;
``InterpretedFunction.run``, or its 3.4/3.5 equivalent: tools/engine/harness/interpreter_launch.py):
both receive the final arguments after autotuning and heuristics, so the recorded constexprs,
``num_warps`` and ``num_stages`` are those of the real launch. On a GPU it also wraps
``CompiledKernel.__getitem__``: a kernel compiled ahead (``kernel.warmup(...)``, the fused-softmax
tutorial's pattern) is launched as ``compiled[grid](*args)`` without passing through ``run``; its
constexprs and options come from the compiled kernel. Data per distinct launch signature
(kernel, argument types, constexpr values, launch options): the kernel's file and line, the grid
of the first such launch and how many times it was launched.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

from tools.engine.harness import interpreter_launch
from tools.engine.harness.instruments import instrument

_MAX_DISTINCT = 64
_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion")


def is_tensor_descriptor(value: Any) -> bool:
    """A host-side ``TensorDescriptor`` (Triton 3.4 and later), whose ``base`` is the tensor it describes."""
    return type(value).__name__ == "TensorDescriptor" and all(
        hasattr(value, a) for a in ("base", "shape", "strides", "block_shape"))


def launch_tensors(value: Any) -> list[Any]:
    """The tensors a kernel argument lets the kernel read or write: a tensor, a descriptor's base, the
    tensors of a tuple argument."""
    if hasattr(value, "data_ptr") and hasattr(value, "untyped_storage"):
        return [value]
    if is_tensor_descriptor(value):
        return launch_tensors(value.base)
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in launch_tensors(v)]
    return []


def _describe_arg(value: Any) -> dict[str, Any]:
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
        return {"kind": "tensor", "dtype": str(value.dtype).removeprefix("torch."), "shape": list(value.shape),
                "stride": list(value.stride()), "device": str(value.device),
                "numel": int(value.numel()), "storage_numel": int(value.untyped_storage().nbytes()
                                                                 // max(value.element_size(), 1)),
                "storage_offset": int(value.storage_offset())}
    if is_tensor_descriptor(value):
        # a host-side TMA descriptor (triton.tools.tensor_descriptor): the kernel reads and writes its base
        extra = {"round_f32_to_tf32": bool(value.round_f32_to_tf32)} if hasattr(value, "round_f32_to_tf32") else {}
        return {"kind": "tensor_descriptor", "base": _describe_arg(value.base),
                "shape": [int(d) for d in value.shape], "strides": [int(d) for d in value.strides],
                "block_shape": [int(d) for d in value.block_shape], "padding": str(getattr(value, "padding", "zero")),
                **extra}
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, int):
        return {"kind": "int", "value": value}
    if isinstance(value, float):
        return {"kind": "float", "value": value}
    if value is None:
        return {"kind": "none"}
    return {"kind": type(value).__name__, "repr": repr(value)[:80]}


def _grid(grid: Any, meta: dict[str, Any]) -> list[int] | str:
    try:
        g = grid(meta) if callable(grid) else grid
        return [int(x) for x in g]
    except Exception as exc:  # noqa: BLE001 - a grid we cannot evaluate is recorded as such
        return f"unevaluated: {exc}"


@instrument("triton_launches")
@contextlib.contextmanager
def triton_launches(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    data: dict[str, Any] = {"total": 0, "launches": [], "truncated": False}
    try:
        from triton.runtime import interpreter, jit
    except ImportError:
        data["error"] = "triton is not importable"
        yield data
        return
    index: dict[str, dict[str, Any]] = {}

    def wrap(original: Any) -> Any:
        def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
            if not warmup:
                try:
                    record(self, args, grid, kwargs)
                except Exception as exc:  # noqa: BLE001 - observing must never break the launch
                    data.setdefault("record_errors", []).append(repr(exc)[:200])
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)

        return run

    def record(kernel: Any, args: tuple[Any, ...], grid: Any, kwargs: dict[str, Any],
               names: list[str] | None = None) -> None:
        data["total"] += 1
        fn = getattr(kernel, "fn", kernel)
        names = names if names is not None else list(inspect.signature(fn).parameters)
        if names is not None:
            names = names + [n for n in inspect.signature(fn).parameters if n not in names]
        bound = dict(zip(names, args))
        bound.update({k: v for k, v in kwargs.items() if k in names})
        constexprs = [n for n, p in inspect.signature(fn).parameters.items()
                      if "constexpr" in str(p.annotation)]
        described = {n: _describe_arg(v) for n, v in bound.items()}
        options = {k: kwargs[k] for k in _OPTIONS if k in kwargs}
        const_values = {n: bound[n] for n in constexprs if n in bound}
        key_args = {n: (d.get("dtype") if d["kind"] == "tensor" else
                        (d["base"].get("dtype"), tuple(d["block_shape"])) if d["kind"] == "tensor_descriptor" else
                        d.get("value", d["kind"]))
                    for n, d in described.items()}
        key = repr((fn.__qualname__, sorted(key_args.items(), key=str), sorted(options.items())))
        if key in index:
            index[key]["count"] += 1
            return
        if len(index) >= _MAX_DISTINCT:
            data["truncated"] = True
            return
        try:
            file, line = inspect.getsourcefile(fn), inspect.getsourcelines(fn)[1]
        except (OSError, TypeError):
            file, line = None, None
        entry = {"kernel": fn.__name__, "qualname": fn.__qualname__, "module": getattr(fn, "__module__", None),
                 "file": file, "line": line, "grid": _grid(grid, {**bound, **kwargs}), "args": described,
                 "constexprs": {k: v for k, v in const_values.items() if isinstance(v, (int, float, bool, str))},
                 "options": options, "count": 1}
        index[key] = entry
        data["launches"].append(entry)

    def record_compiled(compiled: Any, grid: Any, args: tuple[Any, ...]) -> None:
        src = getattr(compiled, "src", None)
        fn = getattr(getattr(src, "fn", None), "fn", None) or getattr(src, "fn", None)
        meta = getattr(compiled, "metadata", None)
        options = {k: getattr(meta, k) for k in _OPTIONS if hasattr(meta, k)}
        if fn is None or not callable(fn):
            data["total"] += 1
            name = str(getattr(compiled, "name", "?"))
            key = repr((name, options))
            if key in index:
                index[key]["count"] += 1
                return
            entry = {"kernel": name, "qualname": name, "module": None, "file": None, "line": None,
                     "grid": _grid(grid, {}), "args": {f"arg{i}": _describe_arg(a) for i, a in enumerate(args)},
                     "constexprs": {}, "options": options, "count": 1, "precompiled": True}
            index[key] = entry
            data["launches"].append(entry)
            return
        params = inspect.signature(fn).parameters
        # recent Triton passes every parameter to the compiled kernel (constexprs included, as the
        # tutorial's ``kernel[grid](..., BLOCK_SIZE, num_stages)``), older versions only the others
        names = list(params) if len(args) == len(params) else \
            [n for n, p in params.items() if "constexpr" not in str(p.annotation)]
        constants = getattr(src, "constexprs", None) or getattr(src, "constants", None) or {}
        all_names = list(params)
        const = {}
        for k, v in dict(constants).items():
            i = k[0] if isinstance(k, tuple) and k else k
            name = all_names[i] if isinstance(i, int) and i < len(all_names) else str(i)
            if name in params and "constexpr" in str(params[name].annotation):
                const[name] = v
        record(fn, tuple(args), grid, {**const, **options}, names=names)
        index_entry = data["launches"][-1] if data["launches"] else None
        if index_entry is not None and index_entry.get("qualname") == fn.__qualname__:
            index_entry["precompiled"] = True

    def wrap_getitem(original: Any) -> Any:
        def getitem(self: Any, grid: Any) -> Any:
            runner = original(self, grid)

            def observed(*args: Any, **kwargs: Any) -> Any:
                try:
                    record_compiled(self, grid, args)
                except Exception as exc:  # noqa: BLE001 - observing must never break the launch
                    data.setdefault("record_errors", []).append(repr(exc)[:200])
                return runner(*args, **kwargs)

            return observed

        return getitem

    originals: list[tuple[Any, str, Any]] = []
    original = jit.JITFunction.run
    jit.JITFunction.run = wrap(original)
    try:
        restore_interpreted = interpreter_launch.wrap_run(interpreter, wrap)
    except BaseException:
        jit.JITFunction.run = original
        raise
    try:
        from triton.compiler.compiler import CompiledKernel
    except ImportError:
        CompiledKernel = None  # noqa: N806
    if CompiledKernel is not None and hasattr(CompiledKernel, "__getitem__"):
        originals.append((CompiledKernel, "__getitem__", CompiledKernel.__getitem__))
        CompiledKernel.__getitem__ = wrap_getitem(CompiledKernel.__getitem__)
    try:
        yield data
    finally:
        for cls, attr, saved in originals:
            setattr(cls, attr, saved)
        restore_interpreted()
        jit.JITFunction.run = original
