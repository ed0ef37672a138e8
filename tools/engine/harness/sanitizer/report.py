"""What the sanitizer saw during one submission call: launches, checked accesses and violations.

Violations are aggregated per (kind, kernel, source line, argument, direction, masked) so a bad
tail costs one record however many lanes and programs hit it; each record keeps counts, the element
range touched, the first programs and a few example lanes. Everything here is JSON-able.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tools.engine.harness.sanitizer.races import RaceTracker

MAX_RECORDS = 64
MAX_EXAMPLES = 4
MAX_PROGRAMS = 8
MAX_KERNELS = 32
_OFFSET_BITS = 44  # storages below 16 TiB; argument positions above


@dataclass
class Region:
    """The storage behind one tensor argument of a launch (host copy, as the interpreter sees it)."""

    name: str
    start: int
    end: int
    base: int
    itemsize: int
    dtype: str
    shape: list[int]
    position: int = 0  # the argument's place among the launch's storages (argument order, not address)

    def element(self, addr: np.ndarray, itemsize: int) -> np.ndarray:
        """Element index of each address relative to the argument's own data pointer."""
        return (addr.astype(np.int64) - np.int64(self.base)) // max(itemsize, 1)

    def valid_elements(self, itemsize: int) -> list[int]:
        """[first, last+1) element indices (in ``itemsize`` units) inside the storage."""
        size = max(itemsize, 1)
        return [(self.start - self.base) // size, (self.end - self.base) // size]

    def describe(self) -> dict[str, Any]:
        return {"arg": self.name, "dtype": self.dtype, "shape": self.shape, "bytes": self.end - self.start,
                "offset_bytes": self.base - self.start}


@dataclass
class Launch:
    index: int
    kernel: str
    regions: list[Region]
    starts: np.ndarray = field(init=False)
    ends: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.regions.sort(key=lambda r: r.start)
        self.starts = np.array([r.start for r in self.regions], dtype=np.uint64)
        self.ends = np.array([r.end for r in self.regions], dtype=np.uint64)

    def owner(self, addr: np.ndarray, itemsize: int) -> np.ndarray:
        """Index of the region holding each whole access ``[addr, addr+itemsize)``, -1 if none."""
        if not self.regions:
            return np.full(addr.shape, -1, dtype=np.int64)
        flat = addr.astype(np.uint64)
        i = np.searchsorted(self.starts, flat, side="right").astype(np.int64) - 1
        j = np.clip(i, 0, None)
        inside = (i >= 0) & (flat >= self.starts[j]) & (flat <= self.ends[j] - np.uint64(itemsize)) \
            & (self.ends[j] >= np.uint64(itemsize))
        return np.where(inside, i, -1)

    def canonical(self, addr: np.ndarray) -> np.ndarray:
        """Each address as (argument position, byte offset in its storage) packed in one integer: the
        same for every run of the kernel wherever the allocator put its arguments, and ordered like
        them (argument order, then offset). An address in no argument (never recorded) keeps its raw
        value above every such key."""
        flat = addr.astype(np.uint64)
        outside = flat | np.uint64(1 << 63)
        if not self.regions:
            return outside
        owner = self.owner(flat, 1)
        j = np.clip(owner, 0, None)
        positions = np.array([r.position for r in self.regions], dtype=np.uint64)
        key = (positions[j] << np.uint64(_OFFSET_BITS)) | (flat - self.starts[j])
        return np.where(owner >= 0, key, outside)

    def nearest(self, addr: np.ndarray) -> np.ndarray:
        """The closest region to each address (attribution when provenance was lost)."""
        a = addr.astype(np.int64)[..., None]
        starts = self.starts.astype(np.int64)
        ends = self.ends.astype(np.int64)
        dist = np.where(a < starts, starts - a, np.where(a >= ends, a - ends + 1, 0))
        return np.argmin(dist, axis=-1)


_SKIP_DIRS: tuple[str, ...] = ()


def _skip_dirs() -> tuple[str, ...]:
    global _SKIP_DIRS
    if not _SKIP_DIRS:
        import triton

        here = os.path.dirname(os.path.abspath(__file__))
        _SKIP_DIRS = (os.path.dirname(os.path.abspath(triton.__file__)) + os.sep,
                      os.path.dirname(os.path.abspath(np.__file__)) + os.sep, here + os.sep)
    return _SKIP_DIRS


def user_location() -> dict[str, Any]:
    """File, line and function of the innermost frame outside Triton, numpy and this package: the
    kernel's own source line (the interpreter runs the kernel as Python, compiled from its file)."""
    skip = _skip_dirs()
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(skip) and not path.startswith("<"):
            return {"file": path, "line": frame.f_lineno, "function": frame.f_code.co_name}
        frame = frame.f_back
    return {"file": None, "line": None, "function": None}


class Report:
    def __init__(self, triton_version: str) -> None:
        self.data: dict[str, Any] = {
            "triton": triton_version, "installed": False, "launches": 0, "programs": 0, "loads": 0,
            "stores": 0, "atomics": 0, "lanes_checked": 0, "asserts_evaluated": 0, "violations": [],
            "truncated": False, "kernels": {}, "interpreter_errors": [], "internal_errors": [], "tampered": []}
        self._index: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._programs: dict[tuple[Any, ...], set[tuple[int, ...]]] = {}
        self.launch: Launch | None = None
        self.pid: tuple[int, int, int] = (0, 0, 0)
        self.races = RaceTracker()
        self.data["race_check"] = {"launches": 0, "partial": 0}

    # -- launches ----------------------------------------------------------------------------
    def begin_launch(self, kernel: str, regions: list[Region]) -> Launch:
        self.launch = Launch(self.data["launches"], kernel, regions)
        self.data["launches"] += 1
        self.races.begin()
        k = self.data["kernels"]
        if kernel in k or len(k) < MAX_KERNELS:
            entry = k.setdefault(kernel, {"launches": 0, "programs": 0, "args": []})
            entry["launches"] += 1
            if not entry["args"]:
                # in argument order: the launch sorts its regions by address, which differs run to run
                entry["args"] = [r.describe() for r in sorted(regions, key=lambda r: r.position)]
        return self.launch

    def end_launch(self, grid: tuple[int, ...] | None) -> None:
        if self.launch is not None:
            self._races()
        if self.launch is not None and grid:
            n = int(np.prod(grid))
            self.data["programs"] += n
            entry = self.data["kernels"].get(self.launch.kernel)
            if entry is not None:
                entry["programs"] += n
                entry.setdefault("grid", list(grid))
        self.launch = None

    def _races(self) -> None:
        """Turn the launch's conflicting accesses (tools/engine/harness/sanitizer/races.py) into ``race``
        violations: both programs, both source lines, the argument and element."""
        assert self.launch is not None
        check = self.data["race_check"]
        check["launches"] += 1
        check["partial"] += int(self.races.partial)
        for c in self.races.conflicts(self.launch.canonical):
            addr = np.array([c["address"]], dtype=np.uint64)
            owner = int(self.launch.owner(addr, 1)[0])
            reg = self.launch.regions[owner] if owner >= 0 else None
            first, second = c["sites"]
            self.pid = tuple(c["programs"][1])  # type: ignore[assignment]
            self.violation("race", second, key=(c["kinds"], first.get("file"), first.get("line")),
                           lanes=int(c["lanes"]), examples=[{"programs": c["programs"]}],
                           elements=reg.element(addr, reg.itemsize) if reg is not None else None,
                           fields={"arg": reg.name if reg is not None else None, "accesses": c["kinds"],
                                   "first_site": first, "race_programs": c["programs"],
                                   "element": int(reg.element(addr, reg.itemsize)[0]) if reg is not None else None})

    # -- counters ----------------------------------------------------------------------------
    def count(self, what: str, lanes: int) -> None:
        self.data[what] += 1
        self.data["lanes_checked"] += lanes

    def internal_error(self, where: str, exc: BaseException) -> None:
        errs = self.data["internal_errors"]
        if len(errs) < 8:
            errs.append(f"{where}: {type(exc).__name__}: {exc}"[:300])

    def interpreter_error(self, kernel: str, exc: BaseException) -> None:
        cause = exc.__cause__ or exc
        errs = self.data["interpreter_errors"]
        if len(errs) < 8:
            errs.append({"kernel": kernel, "type": type(cause).__name__, "message": str(cause)[:500],
                         "program": list(self.pid), **user_location_from_traceback(cause)})

    # -- violations --------------------------------------------------------------------------
    def violation(self, kind: str, where: dict[str, Any], *, key: tuple[Any, ...], lanes: int,
                  fields: dict[str, Any], examples: list[dict[str, Any]], elements: np.ndarray | None = None) -> None:
        kernel = self.launch.kernel if self.launch is not None else None
        full_key = (kind, kernel, where.get("file"), where.get("line"), *key)
        rec = self._index.get(full_key)
        if rec is None:
            if len(self._index) >= MAX_RECORDS:
                self.data["truncated"] = True
                return
            rec = {"kind": kind, "kernel": kernel, **where, "launch": self.launch.index if self.launch else None,
                   "lanes": 0, "programs": 0, "program_ids": [], "examples": [], **fields}
            self._index[full_key] = rec
            self._programs[full_key] = set()
            self.data["violations"].append(rec)
        rec["lanes"] += lanes
        seen = self._programs[full_key]
        if self.pid not in seen:
            seen.add(self.pid)
            rec["programs"] += 1
            if len(rec["program_ids"]) < MAX_PROGRAMS:
                rec["program_ids"].append(list(self.pid))
        if elements is not None and elements.size:
            lo, hi = int(elements.min()), int(elements.max())
            rec["element_min"] = min(rec.get("element_min", lo), lo)
            rec["element_max"] = max(rec.get("element_max", hi), hi)
        room = MAX_EXAMPLES - len(rec["examples"])
        if room > 0:
            rec["examples"] += [{"program": list(self.pid), **e} for e in examples[:room]]


def user_location_from_traceback(exc: BaseException) -> dict[str, Any]:
    """The innermost user frame of an exception's traceback (for interpreter errors)."""
    skip = _skip_dirs()
    found: dict[str, Any] = {"file": None, "line": None, "function": None}
    tb = exc.__traceback__
    while tb is not None:
        path = tb.tb_frame.f_code.co_filename
        if not path.startswith(skip) and not path.startswith("<"):
            found = {"file": path, "line": tb.tb_lineno, "function": tb.tb_frame.f_code.co_name}
        tb = tb.tb_next
    return found
