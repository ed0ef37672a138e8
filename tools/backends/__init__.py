"""Framework backends: one small interface per kernel framework (see ``base.Backend``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.backends.base import Backend


def backend_for(framework: str) -> Backend:
    """The registered backend of ``framework``; plain torch for an unknown framework."""
    from reviewer.registry import backends

    table = backends()
    return table.get(framework) or table["torch"]
