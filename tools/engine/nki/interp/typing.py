"""``nki.typing`` (``nt``): parameter annotations. ``nt.mutable_tensor`` lets a kernel write an argument."""

from __future__ import annotations

from typing import Any


class _TensorType:
    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __getitem__(self, shape: Any) -> _TensorType:
        return self

    def __repr__(self) -> str:
        return f"nt.{self.__name__}"


tensor = _TensorType("tensor")
mutable_tensor = _TensorType("mutable_tensor")
