"""The Triton interpreter's launch entry, in one shape on every supported Triton (3.4 to 3.8).

From Triton 3.6 every interpreted launch, ``kernel[grid](...)`` included, goes through the class
method ``InterpretedFunction.run(self, *args, grid, warmup, **kwargs)``. In 3.4 and 3.5 ``run`` is a
closure each instance sets in its ``__init__`` (the autotuner calls it) and ``kernel[grid]`` builds a
``GridExecutor`` itself; both end in ``GridExecutor.__call__(self, *args, **kwargs)``, ``warmup`` (and,
from ``run``, ``grid``) among the keyword arguments. :func:`wrap_run` puts a wrapper of the 3.6 shape
in front of whichever entry the installed Triton has. There, in 3.4/3.5, ``self`` is a :class:`Launch`
whose ``fn`` is the kernel's own Python function, as ``InterpretedFunction.fn`` is, and whose ``run``
launches again through the same entry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

Run = Callable[..., Any]


def class_run(interp: Any) -> bool:
    """Whether ``InterpretedFunction.run`` is a class method (Triton 3.6 and later)."""
    return callable(interp.InterpretedFunction.__dict__.get("run"))


class Launch:
    """One 3.4/3.5 ``GridExecutor`` seen as the ``InterpretedFunction`` that launched it."""

    def __init__(self, interp: Any, executor: Any) -> None:
        self._interp = interp
        self.executor = executor
        self.arg_names = executor.arg_names
        # the executor holds the rewritten kernel; the class keeps which function it came from
        rewritten = interp.InterpretedFunction.rewritten_fn
        self.fn = next((orig for orig, new in rewritten.items() if new is executor.fn), executor.fn)

    @property
    def __name__(self) -> str:
        return getattr(self.fn, "__name__", "kernel")

    def run(self, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        executor = self._interp.GridExecutor(self.executor.fn, self.arg_names, grid)
        return executor(*args, warmup=warmup, **kwargs)


def wrap_run(interp: Any, make: Callable[[Run], Run]) -> Callable[[], None]:
    """Install ``make(original)`` as the launch entry (``original`` and the result have the 3.6 shape
    ``run(self, *args, grid, warmup, **kwargs)``); returns the function that puts the entry back."""
    if class_run(interp):
        cls = interp.InterpretedFunction
        original = cls.run
        cls.run = make(original)
        return lambda: setattr(cls, "run", original)
    ge = interp.GridExecutor
    original_call = ge.__dict__["__call__"]

    def original_run(launch: Launch, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        if warmup:
            return None  # what the 3.4/3.5 interpreter does with a warmup: nothing
        return original_call(launch.executor, *args, **kwargs)

    wrapped = make(original_run)

    # wraps: the sanitizer's check of GridExecutor.__call__ (signature, source) sees Triton's own
    @functools.wraps(original_call)
    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        warmup = kwargs.pop("warmup", False)
        kwargs.pop("grid", None)  # the closure run passes it on; the executor already holds it
        return wrapped(Launch(interp, self), *args, grid=self.grid, warmup=warmup, **kwargs)

    ge.__call__ = __call__
    return lambda: setattr(ge, "__call__", original_call)
