"""Who touched each element: the accesses behind a race between SPMD programs or affine iterations.

The interpreter runs the programs of an SPMD grid and the iterations of an ``nl.affine_range`` loop one
after another. On hardware the compiler may run them in any order or overlap them (``affine_range``
docs; SPMD programs are independent instances), so two of them touching the same element where one
writes is a race whose outcome the sequential run hides. Per storage, elements remember their last
writer and their last two readers since the last write (the last, and the last before the current
iteration of the innermost ordered loop): the epoch (see ``context``) and a *site* (program,
loop iterations, kernel source line, operation). An access that meets an element last written, or
last read, in an *earlier* iteration of an ordered loop (or by another program) is a conflict:
write/read (the read sees another iteration's result), read/write (another iteration's later write
could land first) or write/write. Accumulation (``+=``, ``dma_copy(dst_rmw_op=np.add)``) met by
accumulation is the documented associative reduction and not a conflict.

Limit: two readers per element are remembered; when several earlier iterations read an element, the
race names the most recent of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class Site:
    """One access: where in the kernel, by which program, in which loop iterations."""

    file: str
    line: int
    what: str
    write: bool
    accumulate: bool
    program: tuple[int, ...]
    iterations: tuple[tuple[Any, int], ...]  # (LoopFrame, iteration index), outermost first

    def iteration_of(self, frame: Any) -> int | None:
        return next((i for f, i in self.iterations if f is frame), None)

    def label(self, frame: Any) -> str:
        """Which instance of ``frame`` made this access (program id or affine iteration)."""
        if frame.kind == "spmd":
            return f"program {self.program}"
        return f"iteration {self.iteration_of(frame)}"

    def as_dict(self, frame: Any) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "what": self.what, "instance": self.label(frame),
                "program": list(self.program), "iteration": self.iteration_of(frame)}


def ensure(storage: Any) -> None:
    """Give ``storage`` its per-element writer/reader tracks (created on first use)."""
    if storage.w_site is None:
        storage.w_site = np.full(storage.shape, -1, dtype=np.int32)
        storage.r_stamps = np.zeros(storage.shape, dtype=np.int32)
        storage.r_site = np.full(storage.shape, -1, dtype=np.int32)
        storage.r_prev = np.zeros(storage.shape, dtype=np.int32)
        storage.r_prev_site = np.full(storage.shape, -1, dtype=np.int32)


def first_element(mask: np.ndarray, coords: tuple[np.ndarray, ...] | None) -> list[int]:
    """Storage coordinates of the first True element of ``mask`` (shaped like the access)."""
    pos = tuple(int(i) for i in np.argwhere(mask)[0]) if mask.ndim else ()
    if coords is None:
        return list(pos)
    return [int(np.asarray(c)[pos]) for c in coords]


class SiteTable:
    """The sites of one launch, and a flag array saying which are accumulations (indexable by a site
    array; its last slot is always False, so an unknown site, -1, counts as a plain access)."""

    def __init__(self) -> None:
        self.sites: list[Site] = []
        self.accumulating = np.zeros(1024, dtype=bool)

    def add(self, site: Site) -> int:
        if len(self.sites) + 1 >= self.accumulating.size:
            self.accumulating = np.concatenate([self.accumulating, np.zeros_like(self.accumulating)])
        self.accumulating[len(self.sites)] = site.accumulate
        self.sites.append(site)
        return len(self.sites) - 1

    def __getitem__(self, i: int) -> Site:
        return self.sites[i]


def conflicting(stamps: np.ndarray, sites: np.ndarray, frame: Any, accumulate: bool,
                table: SiteTable) -> np.ndarray:
    """Elements (of the access) last touched in an earlier iteration of ``frame``, accumulations met by
    an accumulation excepted."""
    earlier = (stamps >= frame.start_epoch) & (stamps < frame.iter_start_epoch)
    if accumulate and earlier.any():
        earlier &= ~table.accumulating[sites]
    return earlier


def message(accesses: str, storage: Any, frame: Any, first: Site, second: Site, count: int,
            element: list[int]) -> str:
    loop = "the SPMD grid" if frame.kind == "spmd" else f"the nl.affine_range loop at line {frame.line}"
    how = {
        "write/read": f"reads what {first.label(frame)} wrote ({first.what} at line {first.line})",
        "read/write": f"overwrites what {first.label(frame)} read ({first.what} at line {first.line})",
        "write/write": f"writes what {first.label(frame)} also wrote ({first.what} at line {first.line})",
    }[accesses]
    why = ("programs of an SPMD grid run independently on hardware" if frame.kind == "spmd" else
           "the compiler may reorder or overlap affine_range iterations (a loop-carried dependency needs "
           "nl.sequential_range)")
    return (f"race in {loop}: {second.label(frame)} {how}: {count} element(s) of {storage.describe()} "
            f"(first at {element}) by {second.what} at line {second.line}, without an accumulation; {why}, so "
            "the result the interpreter computes in order is not what the hardware guarantees")
