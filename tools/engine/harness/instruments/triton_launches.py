"""``triton_launches``: every Triton kernel launch during the call, as the launcher saw it.

Wraps ``JITFunction.run`` (compiled mode) and the interpreter's launch entry (TRITON_INTERPRET=1;
``InterpretedFunction.run``, or its 3.4/3.5 equivalent: tools/engine/harness/interpreter_launch.py):
both receive the final arguments after autotuning and heuristics, so the recorded constexprs,
``num_warps`` and ``num_stages`` are those of the real launch. Data per distinct launch signature
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


def _describe_arg(value: Any) -> dict[str, Any]:
    if hasattr(value, "data_ptr") and hasattr(value, "dtype"):
        return {"kind": "tensor", "dtype": str(value.dtype).removeprefix("torch."), "shape": list(value.shape),
                "stride": list(value.stride()), "device": str(value.device),
                "numel": int(value.numel()), "storage_numel": int(value.untyped_storage().nbytes()
                                                                 // max(value.element_size(), 1)),
                "storage_offset": int(value.storage_offset())}
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

    def record(kernel: Any, args: tuple[Any, ...], grid: Any, kwargs: dict[str, Any]) -> None:
        data["total"] += 1
        fn = getattr(kernel, "fn", kernel)
        names = list(inspect.signature(fn).parameters)
        bound = dict(zip(names, args))
        bound.update({k: v for k, v in kwargs.items() if k in names})
        constexprs = [n for n, p in inspect.signature(fn).parameters.items()
                      if "constexpr" in str(p.annotation)]
        described = {n: _describe_arg(v) for n, v in bound.items()}
        options = {k: kwargs[k] for k in _OPTIONS if k in kwargs}
        const_values = {n: bound[n] for n in constexprs if n in bound}
        key_args = {n: (d.get("dtype") if d["kind"] == "tensor" else d.get("value", d["kind"]))
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

    original = jit.JITFunction.run
    jit.JITFunction.run = wrap(original)
    try:
        restore_interpreted = interpreter_launch.wrap_run(interpreter, wrap)
    except BaseException:
        jit.JITFunction.run = original
        raise
    try:
        yield data
    finally:
        restore_interpreted()
        jit.JITFunction.run = original
