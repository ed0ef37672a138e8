"""The code objects of the reviewer's own modules, as they stood when the child was sealed.

A frame is the harness's when it runs one of these code objects, not when its file name says so: a
submission can compile its own code under a harness file name, and run it in a harness module's namespace
(reached through a harness function's ``__globals__``). It cannot make one of these objects. Held by
``harness_guard.seal`` (before any user code loads); a process that was never sealed (a test calling
harness code directly) collects them from ``sys.modules`` on first use.
"""

from __future__ import annotations

import sys
from types import CodeType, FunctionType, ModuleType
from typing import Any

from tools.engine.sandbox.own_modules import is_own

_CODE: set[CodeType] = set()
_STATE = {"held": False}


def _code(code: CodeType) -> None:
    if code in _CODE:
        return
    _CODE.add(code)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _code(const)  # nested functions, lambdas and comprehensions


def _visit(value: Any, module: str, depth: int = 0) -> None:
    if depth > 4:
        return
    value = getattr(value, "__func__", value)  # staticmethod, classmethod, bound method
    if isinstance(value, property):
        for f in (value.fget, value.fset, value.fdel):
            if f is not None:
                _visit(f, module, depth + 1)
    elif isinstance(value, FunctionType):
        if value.__module__ == module:
            _code(value.__code__)
        wrapped = getattr(value, "__wrapped__", None)  # functools.wraps, contextmanager
        if wrapped is not None:
            _visit(wrapped, module, depth + 1)
    elif isinstance(value, type) and value.__module__ == module:
        for attr in list(vars(value).values()):
            _visit(attr, module, depth + 1)


def hold(modules: dict[str, ModuleType]) -> None:
    """Collect the code of every function and class of the reviewer's modules in ``modules``."""
    for name, mod in modules.items():
        if is_own(name) and isinstance(mod, ModuleType):
            for value in list(vars(mod).values()):
                _visit(value, name)
    _STATE["held"] = True


def is_own_code(code: CodeType) -> bool:
    """Whether ``code`` is the reviewer's own (a function of one of its modules, or nested in one)."""
    if not _STATE["held"]:
        hold({n: m for n, m in list(sys.modules.items()) if is_own(n)})
    return code in _CODE
