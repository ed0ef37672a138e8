"""One concrete input configuration, shared by the parent (which plans it) and the children."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Transform(BaseModel):
    """A deterministic change applied to generated inputs in *both* children (see transforms.py)."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    args: dict[str, Any] = Field(default_factory=dict)


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    seed: int
    params: dict[str, Any] = Field(default_factory=dict)
    """KernelBench: module-level size constants to rebind. GPU MODE / manifest: generator kwargs."""
    dtype: str | None = None
    """Cast floating-point inputs (and a KernelBench model) to this dtype."""
    reference_dtype: str | None = None
    """Reference child only: run the reference in this wider dtype (``float64`` for the error budget).
    The inputs saved for the submission are unchanged; the reference computes on an exact up-cast of
    them (and of a KernelBench model already cast to ``dtype``), so its outputs are the same
    function evaluated with less rounding."""
    transforms: list[Transform] = Field(default_factory=list)
    init_args: dict[int, float] = Field(default_factory=dict)
    """KernelBench: entries of ``get_init_inputs()`` replaced by position before ``Model`` and ``ModelNew``
    are built (the generality init-args axis, tools/generality/init_args.py); each must be a float there."""
    label: str = ""
    model_seed: int | None = None
    """The seed a KernelBench ``Model``/``ModelNew`` is constructed under (its random parameters) and the
    reference's and submission's own random draws are made under; ``None``: ``seed``. A second input
    content for the same bound model (the integrity probes) sets it to the first case's seed, so the
    reference it is compared with has the same weights as the submission bound once."""

    @property
    def weights_seed(self) -> int:
        return self.seed if self.model_seed is None else self.model_seed

    def spec(self) -> str:
        """The compact JSON a user pastes into ``kreview rerun --case``."""
        return json.dumps(self.model_dump(exclude_defaults=True, exclude={"label"}), sort_keys=True,
                          separators=(",", ":"))
