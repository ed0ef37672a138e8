"""Instruments observe one submission call inside the child and return JSON-able data.

An instrument named ``X`` lives in ``tools.engine.harness.instruments.X`` and registers itself with
``@instrument("X")`` when ``load_all`` imports it (at child start): a function ``(payload) -> context
manager`` whose ``__enter__`` returns the dict that is filled in while the call runs and sent back
to the parent afterwards. Remember the submission runs in the same process: treat what an
instrument reports as a claim from a process that untrusted code could have tampered with, and
corroborate it in the parent where possible.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

Instrument = Callable[[dict[str, Any]], contextlib.AbstractContextManager[dict[str, Any]]]
INSTRUMENTS: dict[str, Instrument] = {}


def instrument(name: str) -> Callable[[Instrument], Instrument]:
    def deco(fn: Instrument) -> Instrument:
        INSTRUMENTS[name] = fn
        return fn

    return deco


# Rationale: instruments that only a framework's prelude can serve are loaded by that prelude (the
# NKI interpreter costs seconds to import: tools.engine.nki.prelude loads ``nki``).
BY_PRELUDE = ("nki",)


def load_all() -> None:
    """Import every instrument (each registers itself). The child does this at start, before user
    code: an instrument imported later would find the submission's ``tools`` package, not ours
    (tools/engine/sandbox/own_modules.py)."""
    for info in pkgutil.iter_modules(__path__):
        if info.name not in BY_PRELUDE:
            importlib.import_module(f"{__name__}.{info.name}")


def get(name: str) -> Instrument:
    if name not in INSTRUMENTS:
        # Rationale: in a child every instrument is registered before user code (load_all, and the NKI
        # prelude for ``nki``), so this import only runs in-process (tests, tooling), never after
        # the child withdrew our modules.
        if not name.isidentifier():
            raise KeyError(f"bad instrument name {name!r}")
        try:
            importlib.import_module(f"tools.engine.harness.instruments.{name}")
        except ModuleNotFoundError as exc:
            raise KeyError(f"unknown instrument {name!r}") from exc
    return INSTRUMENTS[name]
