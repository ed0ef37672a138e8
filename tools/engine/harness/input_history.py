"""Every input the submission is given lives at an address no earlier input of this child had.

A submission can key a cache on an input's address (``x.data_ptr()``, ``id(x)``): its answer then
depends on whether the allocator hands a new input the address of a freed earlier one, which
depends on every allocation before it (thread arenas, the order of earlier checks), not on the
kernel. So the child keeps each input it handed to the submission alive (``keep``): no later
allocation can reuse its address, a cache keyed on addresses never hits in the other checks, and
integrity's "same storage, new content" probe (harness/integrity_requests.py), which overwrites the
inputs in place and calls again, is what catches such a cache, every time.

The kept inputs are capped at ``keep_bytes()``: ``KEEP_BYTES``, or a sixteenth of the child's
address-space limit when that is smaller (the default 6 GiB limit gives 384 MiB; about 2.2 GiB of it
goes to the imports). Past it the oldest are released (``stats()`` counts them), and an address
could be reused again: a review whose inputs add up to more than that is not covered.
"""

from __future__ import annotations

import resource
from collections import deque
from typing import Any

import torch

KEEP_BYTES = 512 << 20

_KEPT: deque[tuple[int, Any]] = deque()
_STATE = {"bytes": 0, "released": 0, "kept": 0}


def _storages(obj: Any, out: dict[int, int]) -> None:
    if isinstance(obj, torch.Tensor):
        s = obj.untyped_storage()
        out[int(s.data_ptr())] = int(s.nbytes())
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _storages(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _storages(x, out)


def keep_bytes() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return KEEP_BYTES if soft == resource.RLIM_INFINITY else min(KEEP_BYTES, soft // 16)


def keep(inputs: Any) -> None:
    """Hold ``inputs`` (tensors, nested in lists, tuples, dicts) for the rest of the child's life."""
    found: dict[int, int] = {}
    _storages(inputs, found)
    size = sum(found.values())
    _KEPT.append((size, inputs))
    _STATE["bytes"] += size
    _STATE["kept"] += 1
    cap = keep_bytes()
    while _STATE["bytes"] > cap and len(_KEPT) > 1:
        n, _ = _KEPT.popleft()
        _STATE["bytes"] -= n
        _STATE["released"] += 1


def stats() -> dict[str, int]:
    return dict(_STATE)
