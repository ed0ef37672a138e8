"""The interpreter's launch entry in one shape (tools/engine/harness/interpreter_launch.py): on a
Triton 3.4/3.5-shaped interpreter (a per-instance ``run`` closure, ``kernel[grid]`` building a
``GridExecutor`` itself) every launch reaches the wrapper with the kernel's own function, its grid
and its options, and Triton's ``GridExecutor.__call__`` looks unchanged to the sanitizer's check;
on the installed Triton the class method ``InterpretedFunction.run`` is wrapped and put back."""

from __future__ import annotations

import inspect
import types
from typing import Any

from tools.engine.harness import interpreter_launch


def _old_interpreter() -> tuple[types.SimpleNamespace, list[tuple[Any, ...]]]:
    """The launch path of triton/runtime/interpreter.py 3.5, reduced to what the adapter touches."""
    executed: list[tuple[Any, ...]] = []

    class GridExecutor:
        def __init__(self, fn: Any, arg_names: list[str], grid: Any) -> None:
            self.fn, self.arg_names, self.grid = fn, arg_names, grid

        def __call__(self, *args_dev: Any, **kwargs: Any) -> Any:
            if kwargs.pop("warmup", False):
                return None
            executed.append((self.fn, self.grid, args_dev, kwargs))
            return "ran"

    class InterpretedFunction:
        rewritten_fn: dict[Any, Any] = {}

        def __init__(self, fn: Any) -> None:
            self.fn = fn
            self.arg_names = list(inspect.signature(fn).parameters)

            def run(*args: Any, **kwargs: Any) -> Any:
                return GridExecutor(self.rewrite(), self.arg_names, kwargs["grid"])(*args, **kwargs)

            self.run = run

        def rewrite(self) -> Any:
            return self.rewritten_fn.setdefault(self.fn, lambda **kw: None)

        def __getitem__(self, grid: Any) -> Any:
            return GridExecutor(self.rewrite(), self.arg_names, grid)

    return types.SimpleNamespace(GridExecutor=GridExecutor, InterpretedFunction=InterpretedFunction), executed


def add_kernel(x_ptr, n, BLOCK):  # noqa: ANN001, N803 - a kernel's signature
    pass


def test_every_launch_of_an_old_interpreter_reaches_the_wrapper() -> None:
    interp, executed = _old_interpreter()
    kernel = interp.InterpretedFunction(add_kernel)  # decorated before the wrapper is installed
    seen: list[tuple[Any, ...]] = []

    def make(original: Any) -> Any:
        def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
            seen.append((self.fn, self.__name__, grid, warmup, args, kwargs))
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)

        return run

    signature = inspect.signature(interp.GridExecutor.__call__)
    undo = interpreter_launch.wrap_run(interp, make)
    try:
        assert not interpreter_launch.class_run(interp)
        assert inspect.signature(interp.GridExecutor.__call__) == signature
        assert kernel[(3,)]("x", 10, BLOCK=4) == "ran"
        assert kernel.run("x", 10, grid=(2,), warmup=False, BLOCK=8, num_warps=4) == "ran"
        assert kernel.run("x", 10, grid=(2,), warmup=True, BLOCK=8) is None
        assert seen == [
            (add_kernel, "add_kernel", (3,), False, ("x", 10), {"BLOCK": 4}),
            (add_kernel, "add_kernel", (2,), False, ("x", 10), {"BLOCK": 8, "num_warps": 4}),
            (add_kernel, "add_kernel", (2,), True, ("x", 10), {"BLOCK": 8}),
        ]
        # the warmup launched nothing (what the 3.4/3.5 interpreter does)
        assert len(executed) == 2 and executed[1][1:] == ((2,), ("x", 10), {"BLOCK": 8, "num_warps": 4})
    finally:
        undo()
    assert not hasattr(interp.GridExecutor.__call__, "__wrapped__")
    assert kernel[(1,)]("x", 1, BLOCK=4) == "ran" and len(seen) == 3


def test_a_launch_object_launches_again_through_the_entry() -> None:
    """What the virtual GPU's CompiledKernel does with a kernel warmed up earlier."""
    interp, executed = _old_interpreter()
    kernel = interp.InterpretedFunction(add_kernel)
    launches: list[Any] = []

    def make(original: Any) -> Any:
        def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
            launches.append(self)
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)

        return run

    undo = interpreter_launch.wrap_run(interp, make)
    try:
        kernel[(1,)]("x", 1, BLOCK=4)
        assert launches[0].run("y", 2, grid=(5,), warmup=False, BLOCK=4) == "ran"
    finally:
        undo()
    assert [lc.fn for lc in launches] == [add_kernel, add_kernel] and executed[-1][1:3] == ((5,), ("y", 2))


def test_the_installed_triton_has_its_class_method_wrapped_and_put_back() -> None:
    from triton.runtime import interpreter

    before = interpreter.InterpretedFunction.__dict__.get("run") or interpreter.GridExecutor.__dict__["__call__"]
    marker = object()

    def make(original: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            return original(*args, **kwargs)

        run.marker = marker  # type: ignore[attr-defined]
        return run

    undo = interpreter_launch.wrap_run(interpreter, make)
    owner = interpreter.InterpretedFunction if interpreter_launch.class_run(interpreter) else interpreter.GridExecutor
    name = "run" if owner is interpreter.InterpretedFunction else "__call__"
    assert owner.__dict__[name] is not before
    undo()
    assert owner.__dict__[name] is before
