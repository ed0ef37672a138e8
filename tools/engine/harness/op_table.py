"""The table of requests a sandbox child answers, and what every request handler shares.

``op(name)`` registers a handler ``(payload, state) -> dict`` in ``OPS``; ``ChildState`` is what the
child keeps between requests (its config, device, loaded reference and submission). ``prepared``,
``restored`` and ``sync`` build a case's inputs and wait for the device the same way in every handler.

The handlers live in ``tools.engine.harness.ops`` (the harness's own requests, which also imports the
integrity probes') and in ``tools.engine.harness.integrity_requests``; both import this module, neither
the other's internals, so the two do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

import tools.engine.harness.programs as programs
import tools.engine.harness.tensors as tensors
import tools.engine.harness.transforms as transforms
from tools.engine.harness.case import Case
from tools.engine.harness.programs import CaseData


class ChildState:
    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.device: str = config.get("device", "cpu")
        self.reference: programs.ReferenceProgram | None = None
        self.submission: programs.SubmissionProgram | None = None


OPS: dict[str, Callable[[dict[str, Any], ChildState], dict[str, Any]]] = {}


def op(name: str):
    def deco(fn):
        OPS[name] = fn
        return fn

    return deco


def sync(device: str) -> None:
    if device.startswith("cuda") and torch.cuda.is_available():
        torch.cuda.synchronize()


def prepared(base: list[Any], case: Case, device: str) -> list[Any]:
    return transforms.apply(tensors.move(base, device), case.transforms)


def restored(init: list[Any], inputs: list[Any], kinds: dict[str, str]) -> CaseData:
    restored = tensors.restore([init, inputs], kinds)
    return CaseData(init=restored[0], inputs=restored[1])
