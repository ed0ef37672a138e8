"""``virtual_gpu``: what the virtual device (tools/engine/harness/virtual_gpu.py) answered so far in this
child (driver queries, device properties, warmup compile figures, autotuned kernels and the config
each ran), and, with options, which config of each autotuned kernel to run during this call.

Options (``payload["instrument_options"]["virtual_gpu"]``): ``{"autotune": {qualname: index}}``.
Like every instrument this is a claim from the child; the parent uses it to describe, never to pass.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import tools.engine.harness.virtual_gpu as vg
from tools.engine.harness.instruments import instrument


@instrument("virtual_gpu")
@contextlib.contextmanager
def virtual_gpu(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    opts = (payload.get("instrument_options") or {}).get("virtual_gpu") or {}
    data: dict[str, Any] = {"active": bool(vg.SPEC)}
    if not vg.SPEC:
        yield data
        return
    force = {str(k): int(v) for k, v in (opts.get("autotune") or {}).items()}
    vg.FORCE.clear()
    vg.FORCE.update(force)
    for entry in vg.AUTOTUNE.values():
        entry["chosen"] = []
    try:
        yield data
    finally:
        vg.FORCE.clear()
        data.update({"gpu": vg.SPEC.get("name"), "arch": vg.SPEC.get("arch"), "chosen_by": vg.SPEC.get("chosen_by"),
                     "answers": list(vg.LOG),
                     "autotune": {k: dict(v) for k, v in vg.AUTOTUNE.items()}})
