"""Grids past 65,535 programs: a configuration that crosses it in the dimension a size drives.

CUDA refuses a launch whose grid has more than 65,535 programs in y or z (2^31 - 1 in x), and a
kernel can be wrong only past 65,536 programs (``program_id(0) % 65536``). Neither shows at the
sizes a review usually runs. From the nominal run's launches, each grid dimension with at least
two programs is matched with each size knob: the knob is scaled by ``65,537 / programs`` (a
dimension proportional to the knob then crosses 65,536), every other knob is reduced to at most
16 (rows of width 1-16 keep the input small), and the configuration is run once, under the
``grid_window`` instrument when interpreted (only the head and tail programs of the large
dimension execute, and a launch that does not cross runs no program;
tools/engine/harness/instruments/grid_window.py). Verdicts:

- the launch is refused (``GridLimitError`` from the virtual device: a grid dimension over CUDA's
  limit): fail ``grid_limit``, with the limit and the size;
- a tail program stores exactly what a head program stores (its index wrapped) or nothing while
  every head program stores: fail ``program_id_wrap``;
- otherwise the crossing was tried and passed.

Pure functions; the tool runs them (tools/generality/__init__.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from tools.engine.work_units import PROGRAM_UNITS, work_units
from tools.engine.sizes import scaled_elements

# Rationale: 65,536 is where a 16-bit program index wraps; the crossing configuration launches one
# more, so its last program is past it.
THRESHOLD = 65536
CROSSING = THRESHOLD + 1
# Rationale: rows of width 1-16 keep a 65,537-row input near a million elements.
NARROW = 16
# Rationale: at most this many (knob, dimension) pairs are tried; the first that crosses decides.
MAX_ATTEMPTS = 3
# Rationale: the windowed run executes ~6 programs per launch, but the interpreter still walks
# every program index (a few microseconds each).
SKIPPED_PER_UNIT = 256


@dataclass
class Crossing:
    """One configuration meant to cross ``THRESHOLD`` programs in grid dimension ``axis``."""

    knob: str
    axis: int
    params: dict[str, int]
    """The size knobs as chosen (the crossing knob scaled, the others narrowed)."""
    elements: int
    units: float
    launch: str
    nominal_programs: int


def crossings(launches: list[dict[str, Any]], nominal: dict[str, int], nominal_elements: int,
              max_elements: int) -> tuple[list[Crossing], list[str]]:
    """Candidate crossings, cheapest first, and why other pairs were left out (over memory)."""
    out: list[Crossing] = []
    left_out: list[str] = []
    seen: set[tuple[str, int]] = set()
    for launch in launches:
        grid = launch.get("grid")
        if not (isinstance(grid, list) and all(isinstance(g, int) for g in grid)):
            continue
        for axis, g in enumerate(grid):
            if g < 2 or g >= CROSSING:
                continue
            for knob, v in sorted(nominal.items()):
                if v < 2 or (knob, axis) in seen:
                    continue
                seen.add((knob, axis))
                value = math.ceil(v * CROSSING / g)
                params = {k: (value if k == knob else min(n, NARROW)) for k, n in nominal.items()}
                elements = scaled_elements(nominal_elements, nominal, params)
                label = f"{knob}={value} (grid dimension {'xyz'[axis]} of {launch.get('kernel')})"
                if elements > max_elements:
                    left_out.append(f"{label}: about {elements:,} input elements, over the memory cap of "
                                    f"{max_elements:,}")
                    continue
                units = work_units(6, elements) + PROGRAM_UNITS + CROSSING / SKIPPED_PER_UNIT
                out.append(Crossing(knob, axis, params, elements, units, str(launch.get("kernel")), g))
    # Rationale: a knob equal to the dimension's programs (one row per program) is the likeliest
    # driver; then the smallest input.
    out.sort(key=lambda c: (nominal[c.knob] != c.nominal_programs, c.elements))
    return out[:MAX_ATTEMPTS], left_out


@dataclass
class WindowVerdict:
    outcome: str
    """``pass``, ``fail`` or ``not_crossed`` (no launch went past the threshold)."""
    summary: str
    defect: str | None = None
    result: dict[str, Any] = field(default_factory=dict)


def judge_window(data: dict[str, Any]) -> WindowVerdict:
    """The ``grid_window`` instrument's record of one call, judged."""
    large = [lc for lc in data.get("launches") or [] if isinstance(lc.get("grid"), list)
             and any(int(g) > THRESHOLD for g in lc["grid"])]
    if not large:
        grids = [lc.get("grid") for lc in data.get("launches") or []]
        return WindowVerdict("not_crossed", f"no launch crossed {THRESHOLD:,} programs (grids {grids[:4]})",
                             result={"grids": grids})
    for lc in large:
        axis = next(i for i, g in enumerate(lc["grid"]) if int(g) > THRESHOLD)
        heads = [p for p in lc["programs"] if p["pid"][axis] < THRESHOLD]
        tails = [p for p in lc["programs"] if p["pid"][axis] >= THRESHOLD]
        by_digest = {p["digest"]: p for p in heads if p["stores"]}
        record = {"kernel": lc["kernel"], "grid": lc["grid"], "axis": "xyz"[axis], "programs_run": lc["ran"],
                  "programs_skipped": lc["skipped"], "programs": lc["programs"][:12]}
        for t in tails:
            twin = by_digest.get(t["digest"]) if t["stores"] else None
            if twin is not None:
                return WindowVerdict("fail", f"{lc['kernel']} with grid {tuple(lc['grid'])}: program {t['pid'][axis]:,} "
                                     f"(past {THRESHOLD - 1:,}) stores exactly the {t['stores']} addresses program "
                                     f"{twin['pid'][axis]} stores: its program index wraps, so the elements past "
                                     f"{THRESHOLD:,} programs are never written", "program_id_wrap",
                                     {**record, "tail": t, "twin": twin})
            if not t["stores"] and heads and all(h["stores"] for h in heads):
                return WindowVerdict("fail", f"{lc['kernel']} with grid {tuple(lc['grid'])}: program {t['pid'][axis]:,} "
                                     f"(past {THRESHOLD - 1:,}) stores nothing while programs "
                                     f"{', '.join(str(h['pid'][axis]) for h in heads)} each store "
                                     f"{heads[0]['stores']}: the work past {THRESHOLD:,} programs is dropped",
                                     "program_id_wrap", {**record, "tail": t})
        if not tails:
            return WindowVerdict("not_crossed", f"{lc['kernel']}: no program past {THRESHOLD - 1:,} ran",
                                 result=record)
    lc = large[0]
    return WindowVerdict("pass", f"{lc['kernel']} launched grid {tuple(lc['grid'])}; programs past {THRESHOLD - 1:,} "
                         "store elements of their own (none repeats a head program's stores)",
                         result={"launches": [{k: v for k, v in x.items() if k != "programs"} for x in large]})
