"""Eval set format: ``eval_sets/<set>/<case>/`` holds a submission (any format the reviewer reads)
and ``grades.json`` with the human grades."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewer.core.errors import CalibrationError
from reviewer.rubric import load_rubric


class Grades(BaseModel):
    """One case's human grades."""

    model_config = ConfigDict(extra="forbid")

    criteria: dict[str, Literal["pass", "fail"]]
    """criterion id (of the rubric the set is calibrated against) -> the human grade"""
    overall: Literal["accept", "reject"]
    defect: str = Field(min_length=1, description="the defect in one line, or 'none'")
    how_to_see: str = Field(min_length=1, description="the probe that shows it (or why it is correct)")
    grader: str = Field(min_length=1)
    date: date
    follows: str = Field("", description="the public problem or tutorial the kernel follows")
    hack: str | None = Field(None, description="for the hacks set: the hack class")


@dataclass(frozen=True)
class EvalCase:
    name: str
    path: Path
    grades: Grades


@dataclass(frozen=True)
class Malformed:
    name: str
    path: Path
    why: str


def load_eval_set(path: Path, criteria: Sequence[str] | None = None) -> tuple[list[EvalCase], list[Malformed]]:
    """All cases of a set, and the ones that are malformed (reported, never skipped silently).
    ``criteria``: the criterion ids a grade may name (default: those of the default rubric)."""
    path = Path(path)
    known = list(criteria) if criteria is not None else [c.id for c in load_rubric().criteria]
    if not path.is_dir():
        raise CalibrationError(f"{path} is not an eval set directory")
    cases: list[EvalCase] = []
    bad: list[Malformed] = []
    for d in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        g = d / "grades.json"
        if not g.exists():
            bad.append(Malformed(d.name, d, "no grades.json"))
            continue
        try:
            grades = Grades.model_validate(json.loads(g.read_text()))
        except (ValueError, ValidationError) as exc:
            bad.append(Malformed(d.name, d, f"grades.json does not validate: {exc}"))
            continue
        unknown = sorted(set(grades.criteria) - set(known))
        if unknown:
            bad.append(Malformed(d.name, d, f"grades.json grades criteria {unknown} that the rubric does not define "
                                            f"(criteria: {known})"))
            continue
        if grades.overall == "accept" and "fail" in grades.criteria.values():
            bad.append(Malformed(d.name, d, "overall accept contradicts a failed criterion"))
            continue
        cases.append(EvalCase(d.name, d, grades))
    if not cases and not bad:
        raise CalibrationError(f"{path} holds no cases (sub-directories with grades.json)")
    return cases, bad
