"""Instruments observe one submission call inside the child and return JSON-able data.

An instrument named ``X`` lives in ``tools.engine.harness.instruments.X`` and registers itself with
``@instrument("X")``: a function ``(payload) -> context manager`` whose ``__enter__`` returns the
dict that is filled in while the call runs and sent back to the parent afterwards. Remember the
submission runs in the same process: treat what an instrument reports as a claim from a process
that untrusted code could have tampered with, and corroborate it in the parent where possible.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable
from typing import Any

Instrument = Callable[[dict[str, Any]], contextlib.AbstractContextManager[dict[str, Any]]]
INSTRUMENTS: dict[str, Instrument] = {}


def instrument(name: str) -> Callable[[Instrument], Instrument]:
    def deco(fn: Instrument) -> Instrument:
        INSTRUMENTS[name] = fn
        return fn

    return deco


def get(name: str) -> Instrument:
    if name not in INSTRUMENTS:
        if not name.isidentifier():
            raise KeyError(f"bad instrument name {name!r}")
        try:
            importlib.import_module(f"tools.engine.harness.instruments.{name}")
        except ModuleNotFoundError as exc:
            raise KeyError(f"unknown instrument {name!r}") from exc
    return INSTRUMENTS[name]
