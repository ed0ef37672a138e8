"""Where the data files (rubrics, prompts) are, in a source checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PKG = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """``rubrics`` or ``prompts``: packaged copy first (wheel), then the checkout's top level."""
    for candidate in (_PKG / "_data" / name, _PKG.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"data folder {name!r} is missing from this installation")


def rubric_path(name: str = "default") -> Path:
    return data_dir("rubrics") / f"{name}.yaml"


def prompt_path(name: str) -> Path:
    return data_dir("prompts") / name
