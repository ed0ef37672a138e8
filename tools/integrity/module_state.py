"""Which writes to state that survives a call integrity reports as a concern.

A kernel whose answer depends on how many times it was called before (a module-level counter
that switches paths after 300 calls) or on an earlier call (an output cached on the input's shape
or address) passes every probe that calls it a few times. The source shows where such state is
written (tools/engine/kept_state.py finds every write); the runtime tool's many-calls probe
(tools/integrity/many_calls.py) shows whether it changes any answer. What is reported here is a
*concern*: legitimate state (an autotune table, a compiled-kernel cache, a precomputed constant
buffer) is written the same way.

Reported, outside kernel bodies and the ``__main__`` block, inside a function or method: every
kind of tools/engine/kept_state.py (``global``, ``container``, ``module_attribute``,
``class_attribute``, ``instance``, ``lru_cache``) but

- ``instance_assign``: a plain ``self.x = value`` is what every model does; only an in-place update
  (``self.count += 1``, an item write, a mutating method) outside ``__init__`` is reported;
- writes at import (module-level code builds the module, it is not a call);
- a mutating method whose result is used (``block = CONFIGS.setdefault(shape, ...)``): not reported
  so far; the engine counts it as a write.
"""

from __future__ import annotations

from tools.engine.kept_state import StateWrite, state_writes
from tools.engine.source import SourceFile


def state_concerns(src: SourceFile) -> list[StateWrite]:
    """The writes of ``src`` that integrity reports as a concern (see the module docstring), by line."""
    out: list[StateWrite] = []
    seen: set[tuple[str, str, int]] = set()
    for w in state_writes(src):
        if w.when == "import" or w.kind == "instance_assign" or w.used:
            continue
        if w.kind == "instance" and w.when == "construction":
            continue  # __init__ builds the instance
        if (w.kind, w.name, w.line) not in seen:
            seen.add((w.kind, w.name, w.line))
            out.append(w)
    return out
