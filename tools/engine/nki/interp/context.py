"""The state of one kernel execution: loops, their iteration epochs, on-chip memory in use, SPMD.

Loops run eagerly. Every loop iteration starts a new *epoch*; a write stamps the elements it touches
with the current epoch. A read (or write) in an ``affine_range`` iteration that touches elements
stamped by an *earlier* iteration of the same loop is a loop-carried dependency: the compiler may run
those iterations in any order or in parallel (``affine_range`` docs), so the result is not defined on
hardware even though a sequential simulation computes it. Accumulation (``+=``, the documented
associative-reduction case) is exempt.

Tensors allocated inside a loop body belong to that iteration's scope (NKI scoping rules): their
on-chip memory is released when the iteration ends, and touching them afterwards is
``err_local_variable_used_out_of_scope``.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tools.engine.nki.version as V
import tools.engine.nki.interp.races as races
from tools.engine.nki.interp.recorder import RECORDER, user_location, violation


@dataclass(eq=False)
class LoopFrame:
    kind: str  # affine | sequential | static | range | spmd
    file: str
    line: int
    trips: int
    scoped: bool
    start_epoch: int = 0
    iter_start_epoch: int = 0
    iteration: int = -1
    allocations: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    carried: bool = False
    accumulated: bool = False

    @property
    def checks_order(self) -> bool:
        return self.kind in ("affine", "spmd")


class KernelRun:
    def __init__(self, name: str, file: str, line: int, program_id: tuple[int, ...] = (), grid: tuple[int, ...] = ()):
        self.name, self.file, self.line = name, file, line
        self.epoch = 1
        self.loops: list[LoopFrame] = []
        self.live = {"sbuf": 0, "psum": 0}
        self.program_id = program_id
        self.grid = grid
        self.shared: list[Any] = []
        self.shared_index = 0
        self.spmd_frame: LoopFrame | None = None
        self.sites = races.SiteTable()

    # -- SPMD: the n-th shared_hbm tensor of every program instance is the same tensor ------------
    def claim_shared(self, shape: tuple[int, ...], dtype: Any) -> Any:
        i = self.shared_index
        self.shared_index += 1
        if i < len(self.shared):
            st = self.shared[i]
            if st.shape != tuple(shape):
                raise ValueError(f"program {self.program_id} creates shared_hbm tensor #{i} with shape "
                                 f"{list(shape)}, other programs with {list(st.shape)}")
            return st
        return None

    def register_shared(self, storage: Any) -> None:
        storage.shared = True
        if self.spmd_frame is not None:
            storage.alloc_epoch = self.spmd_frame.start_epoch - 1
        self.shared.append(storage)

    def in_loop(self) -> bool:
        return any(f.kind != "spmd" for f in self.loops)

    # -- loops ---------------------------------------------------------------------------------
    def push(self, frame: LoopFrame) -> None:
        self.epoch += 1
        frame.start_epoch = self.epoch
        self.loops.append(frame)

    def begin_iteration(self, frame: LoopFrame, i: int) -> None:
        self.close_scope(frame)
        self.epoch += 1
        frame.iteration = i
        frame.iter_start_epoch = self.epoch

    def end_loop(self, frame: LoopFrame) -> None:
        self.close_scope(frame)
        if frame in self.loops:
            self.loops.remove(frame)
        key = f"{frame.file}:{frame.line}"
        info = RECORDER.loops.setdefault(key, {"kind": frame.kind, "file": frame.file, "line": frame.line,
                                               "trips": frame.trips, "carried": False, "accumulated": False})
        info["carried"] = info["carried"] or frame.carried
        info["accumulated"] = info["accumulated"] or frame.accumulated

    def close_scope(self, frame: LoopFrame) -> None:
        """End of an iteration: tensors of a scoped loop body die (unrolled loops keep theirs)."""
        if frame.scoped:
            for ref, token in frame.allocations:
                self.release(token)
                st = ref()
                if st is not None:
                    st.out_of_scope = True
        frame.allocations.clear()

    # -- memory --------------------------------------------------------------------------------
    def allocate(self, storage: Any, *, defer: bool = False) -> None:
        """Account an on-chip allocation; raise what the compiler would refuse.

        ``defer``: a matmul result, accounted only when first used other than by ``+=``/assignment
        into an existing tile (``psum += nl.matmul(...)`` accumulates in place on hardware)."""
        space = storage.space
        storage.alloc_epoch = self.epoch
        token: dict[str, Any] = {"live": False, "space": space, "bytes": 0}
        if self.loops and storage.buffer.name != "shared_hbm":
            self.loops[-1].allocations.append((weakref.ref(storage), token))
        storage.token = token
        storage.pending = defer and space in self.live
        if not storage.pending:
            self.account(storage)

    def account(self, storage: Any) -> None:
        storage.pending = False
        space, token = storage.space, storage.token
        if space not in self.live or token is None:
            return
        per_part = storage.bytes_per_partition
        tile_limits(space, per_part, storage.describe())
        total = self.live[space] + per_part
        if space == "psum" and total > V.PSUM_BYTES_PER_PARTITION:
            raise violation(
                "psum_capacity_exceeded",
                f"PSUM overflow: allocating {storage.describe()} brings live PSUM tensors to {total} bytes per "
                f"partition; PSUM holds {V.PSUM_BYTES_PER_PARTITION} bytes per partition "
                f"({V.PSUM_BANKS} banks of {V.PSUM_BANK_BYTES} bytes, 2 MiB in all) on {V.TARGET}",
                documented=False, kind="psum_overflow", doc=V.PAGES["arch"], live_bytes=total)
        if space == "sbuf" and total > V.SBUF_BYTES_PER_PARTITION:
            RECORDER.event("sbuf_pressure",
                           f"live SBUF tensors reach {total} bytes per partition, over the "
                           f"{V.SBUF_BYTES_PER_PARTITION} bytes an SBUF partition holds: the compiler must "
                           "spill to HBM here", dedupe=(), live_bytes=total)
        self.live[space] = total
        token.update(live=True, bytes=per_part)
        RECORDER.memory(space, total)
        weakref.finalize(storage, self.release, token)

    def release(self, token: dict[str, Any]) -> None:
        if token.get("live"):
            token["live"] = False
            self.live[token["space"]] -= token["bytes"]

    # -- dependency stamps ---------------------------------------------------------------------
    def ordered_frames(self, storage: Any) -> list[LoopFrame]:
        return [f for f in self.loops if storage.alloc_epoch < f.start_epoch]

    def _site(self, what: str, write: bool, accumulate: bool) -> int:
        file, line = user_location()
        return self.sites.add(races.Site(file=file, line=line, what=what or ("a write" if write else "a read"),
                                         write=write, accumulate=accumulate, program=tuple(self.program_id),
                                         iterations=tuple((f, f.iteration) for f in self.loops)))

    def check_access(self, storage: Any, coords: tuple[np.ndarray, ...] | None, *, write: bool,
                     accumulate: bool = False, what: str = "") -> None:
        """Cross-iteration hazards on ``storage`` at ``coords`` (elements in use), then stamp the access.

        A conflict with an earlier iteration of an ``affine_range`` loop or another SPMD program is a
        ``race`` event naming both accesses (see ``races``); a write over another iteration's write is
        also the compiler's documented ``err_unexpected_output_dependencies`` and raises."""
        if not self.loops:
            return
        frames = self.ordered_frames(storage)
        site = self._site(what, write, accumulate)
        if frames and storage.stamps is not None:
            st = storage.stamps if coords is None else storage.stamps[coords]
            for f in frames:
                earlier = (st >= f.start_epoch) & (st < f.iter_start_epoch)
                if not np.any(earlier):
                    continue
                if accumulate:
                    f.accumulated = True
                f.carried = f.carried or not accumulate
                if not f.checks_order or storage.w_site is None:
                    continue
                ws = storage.w_site if coords is None else storage.w_site[coords]
                hit = races.conflicting(st, ws, f, accumulate, self.sites)
                if not hit.any():
                    continue
                f.carried = True
                accesses = "write/write" if write else "write/read"
                first = self.sites[int(ws[hit].flat[0])]
                self._race(accesses, storage, f, first, self.sites[site], hit, coords)
                if write:
                    loop = "the SPMD grid" if f.kind == "spmd" else f"nl.affine_range loop at line {f.line}"
                    raise violation(
                        "err_unexpected_output_dependencies",
                        f"Unexpected output dependencies: different iterations of {loop} write to "
                        f"{storage.describe()} at the same elements ({first.label(f)} at line {first.line}, "
                        f"{self.sites[site].label(f)} at line {self.sites[site].line}); index the destination with "
                        "the loop variable or use nl.sequential_range", documented=True,
                        kind="affine_output_dependency", loop_line=f.line, tensor=storage.name)
                break
        if write and frames and storage.r_stamps is not None:
            self._earlier_reads(storage, coords, frames, site, accumulate)
        if write:
            if storage.stamps is None:
                storage.stamps = np.zeros(storage.shape, dtype=np.int32)
            where = ... if coords is None else coords
            storage.stamps[where] = self.epoch
            races.ensure(storage)
            storage.w_site[where] = site
            for arr, empty in ((storage.r_stamps, 0), (storage.r_site, -1), (storage.r_prev, 0),
                               (storage.r_prev_site, -1)):
                arr[where] = empty
        elif storage.param != "immutable":
            races.ensure(storage)
            where = ... if coords is None else coords
            # the last read made before this iteration of the innermost ordered loop is kept as well:
            # an iteration that reads an element before overwriting it must not hide an earlier reader
            inner = self.loops[-1]
            last, last_site = storage.r_stamps[where], storage.r_site[where]
            older = (last > 0) & (last < inner.iter_start_epoch)
            storage.r_prev[where] = np.where(older, last, storage.r_prev[where])
            storage.r_prev_site[where] = np.where(older, last_site, storage.r_prev_site[where])
            storage.r_stamps[where] = self.epoch
            storage.r_site[where] = site

    def _earlier_reads(self, storage: Any, coords: tuple[np.ndarray, ...] | None, frames: list[LoopFrame],
                       site: int, accumulate: bool) -> None:
        """A write over elements an earlier iteration read (write-after-read): a dependency, and in an
        ordered loop a race."""
        pick = (lambda a: a) if coords is None else (lambda a: a[coords])
        for f in frames:
            for stamps, sites in ((storage.r_stamps, storage.r_site), (storage.r_prev, storage.r_prev_site)):
                rs, rsite = pick(stamps), pick(sites)
                hit = races.conflicting(rs, rsite, f, accumulate, self.sites) & (rsite >= 0)
                if hit.any():
                    f.carried = True
                    if not f.checks_order:
                        break
                    first = self.sites[int(rsite[hit].flat[0])]
                    self._race("read/write", storage, f, first, self.sites[site], hit, coords)
                    return

    def _race(self, accesses: str, storage: Any, frame: LoopFrame, first: races.Site, second: races.Site,
              hit: np.ndarray, coords: tuple[np.ndarray, ...] | None) -> None:
        element = races.first_element(hit, coords)
        RECORDER.event(
            "race", races.message(accesses, storage, frame, first, second, int(hit.sum()), element),
            dedupe=(frame.line, storage.name, accesses), where=(second.file, second.line),
            loop_line=frame.line, loop_kind=frame.kind, tensor=storage.name, count=int(hit.sum()),
            accesses=accesses, element=element, first_site=first.as_dict(frame), second_site=second.as_dict(frame))


def tile_limits(space: str, per_part: int, what: str) -> None:
    """A single on-chip tile must fit where it lives (checked before any memory is taken)."""
    if space == "psum" and per_part > V.PSUM_BANK_BYTES:
        raise violation(
            "psum_tile_exceeds_bank",
            f"PSUM tile {what} needs {per_part} bytes per partition, exceeding one PSUM bank "
            f"of {V.PSUM_BANK_BYTES} bytes (free dimension size must not exceed "
            f"nki.language.tile_size.psum_fmax == {V.PSUM_FMAX} float32)",
            documented=False, kind="psum_tile_limit", doc=V.PAGES["programming_model"])
    if space == "sbuf" and per_part > V.SBUF_BYTES_PER_PARTITION:
        raise violation(
            "sbuf_tile_exceeds_partition",
            f"SBUF tile {what} needs {per_part} bytes per partition, more than the "
            f"{V.SBUF_BYTES_PER_PARTITION} bytes ({V.SBUF_BYTES_PER_PARTITION // 1024} KiB) one SBUF partition "
            f"holds on {V.TARGET}", documented=False, kind="sbuf_tile_limit", doc=V.PAGES["arch"])


_STACK: list[KernelRun] = []


def current(api: str = "") -> KernelRun:
    if not _STACK:
        raise violation("err_nki_api_outside_of_nki_kernel",
                        f"Calling NKI API outside of NKI kernels is not supported{f' ({api})' if api else ''}",
                        exc_type=RuntimeError, documented=True, kind="api_outside_kernel")
    return _STACK[-1]


def active() -> KernelRun | None:
    return _STACK[-1] if _STACK else None


def enter(run: KernelRun) -> None:
    _STACK.append(run)


def leave(run: KernelRun) -> None:
    if run in _STACK:
        _STACK.remove(run)


def new_frame(kind: str, trips: int, *, scoped: bool) -> LoopFrame:
    file, line = user_location()
    return LoopFrame(kind=kind, file=file, line=line, trips=trips, scoped=scoped)
