"""Races the interpreter hides: program instances of one launch touching the same address.

The CPU interpreter runs a launch's programs one after another, so a kernel whose programs merge
results with plain ``tl.load`` + ``tl.store`` (a histogram without atomics, a split-K sum into one
output tile) gets the right answer here and loses updates on a GPU, where the programs run at the
same time. This tracker records, per launch, every executed lane of every memory access (address,
program, access kind, source line; the stored value for plain stores) and at the end of the launch
finds addresses where two *different* programs conflict:

- ``store/store``: plain stores from two programs (unless every store wrote the same value: a
  flag every program sets to 1 is benign);
- ``store/load``: one program plain-stores what another program plain-loads;
- ``store/atomic``: one program plain-stores where another updates atomically.

Atomic updates from several programs (``tl.atomic_add`` histograms) are the correct pattern and
never conflict with each other; a plain load of an address others update atomically is not flagged
either (it is how a program reads a flag or counter after synchronising through it). Programs that
take a lock (``tl.atomic_cas`` / ``tl.atomic_xchg``, the layer-norm backward tutorial's pattern)
are trusted to protect their later plain accesses: their lanes after the first CAS/XCHG are not
recorded. Recording stops at ``MAX_LANES`` per launch (the result says so: ``partial``). The
result is one record per (kinds, site pair), every conflicting lane counted; the order of the
analysis is the argument order and offset, not the raw address (see ``conflicts``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# Rationale: 4M lanes x (8 B address + 8 B program + 4 B site + 8 B value) ~ 112 MB at worst,
# inside the sandbox's memory limit next to the kernel's own tensors; nominal interpreter cases
# touch far fewer.
MAX_LANES = 4_000_000
MAX_RACES = 8
_KINDS = {"load": 0, "store": 1, "atomic": 2}


def pid_code(pid: tuple[int, ...]) -> int:
    x, y, z = (tuple(pid) + (0, 0, 0))[:3]
    return int(x) | (int(y) << 21) | (int(z) << 42)


def pid_of(code: int) -> list[int]:
    return [code & ((1 << 21) - 1), (code >> 21) & ((1 << 21) - 1), code >> 42]


@dataclass
class RaceTracker:
    sites: list[dict[str, Any]] = field(default_factory=list)
    _site_ids: dict[tuple[Any, ...], int] = field(default_factory=dict)
    _chunks: list[tuple[np.ndarray, int, int, int, np.ndarray | None]] = field(default_factory=list)
    _lanes: int = 0
    _locked: set[int] = field(default_factory=set)
    partial: bool = False

    def begin(self) -> None:
        self._chunks, self._lanes, self._locked, self.partial = [], 0, set(), False

    def lock(self, pid: tuple[int, ...]) -> None:
        self._locked.add(pid_code(pid))

    def record(self, kind: str, addr: np.ndarray, pid: tuple[int, ...], site: dict[str, Any],
               values: np.ndarray | None = None) -> None:
        code = pid_code(pid)
        if code in self._locked or not addr.size:
            return
        if self._lanes + addr.size > MAX_LANES:
            self.partial = True
            return
        key = (site.get("file"), site.get("line"))
        sid = self._site_ids.get(key)
        if sid is None:
            sid = self._site_ids[key] = len(self.sites)
            self.sites.append({"file": site.get("file"), "line": site.get("line"), "function": site.get("function")})
        self._lanes += int(addr.size)
        vals = None
        if values is not None:
            vals = np.asarray(values, dtype=np.float64).reshape(-1)
        self._chunks.append((addr.astype(np.uint64).reshape(-1), code, _KINDS[kind], sid, vals))

    # -- analysis ------------------------------------------------------------------------------
    def conflicts(self, canonical: Callable[[np.ndarray], np.ndarray] | None = None) -> list[dict[str, Any]]:
        """The races of the launch just ended: one record per (kinds, site pair), first example, every
        conflicting lane counted.

        ``canonical`` maps each address to a key that does not depend on where the allocator put the
        arguments (:meth:`tools.engine.harness.sanitizer.report.Launch.canonical`: argument, then offset
        in it). Every choice below (which address is the first example, which records fill
        ``MAX_RACES``) follows that key or the order the accesses ran in, never the raw addresses:
        otherwise which argument's race is reported would depend on which one happened to lie lower
        in memory, i.e. on everything the process allocated before."""
        if not self._chunks:
            return []
        raw = np.concatenate([c[0] for c in self._chunks])
        addr = raw if canonical is None else np.asarray(canonical(raw), dtype=np.uint64)
        pid = np.concatenate([np.full(c[0].size, c[1], dtype=np.int64) for c in self._chunks])
        kind = np.concatenate([np.full(c[0].size, c[2], dtype=np.int8) for c in self._chunks])
        site = np.concatenate([np.full(c[0].size, c[3], dtype=np.int32) for c in self._chunks])
        vals = np.concatenate([c[4] if c[4] is not None and c[4].size == c[0].size
                               else np.full(c[0].size, np.nan) for c in self._chunks])
        self._chunks = []
        stores = kind == 1
        if not stores.any():
            return []
        s_addr, s_raw, s_pid, s_val = addr[stores], raw[stores], pid[stores], vals[stores]
        order = np.argsort(s_addr, kind="stable")
        s_addr, s_raw, s_pid, s_val, s_site = s_addr[order], s_raw[order], s_pid[order], s_val[order], site[stores][order]
        uniq, start = np.unique(s_addr, return_index=True)
        n = len(s_addr)
        pmin = np.minimum.reduceat(s_pid, start)
        pmax = np.maximum.reduceat(s_pid, start)
        vmin = np.fmin.reduceat(s_val, start)
        vmax = np.fmax.reduceat(s_val, start)
        same_value = (vmin == vmax) & ~np.isnan(s_val[start])
        found: dict[tuple[Any, ...], dict[str, Any]] = {}

        def add(kinds: str, a: int, p1: int, p2: int, site1: int, site2: int, lanes: int) -> None:
            key = (kinds, site1, site2)
            rec = found.get(key)
            if rec is None:
                if len(found) >= MAX_RACES:
                    return
                found[key] = {"kinds": kinds, "address": int(a), "programs": [pid_of(p1), pid_of(p2)],
                              "sites": [self.sites[site1], self.sites[site2]], "lanes": lanes}
            else:
                rec["lanes"] += lanes

        # store/store: two programs store to one address (different values); per address, the first
        # store (in the order they ran) and the first one from another program
        multi = np.flatnonzero((pmin != pmax) & ~same_value)
        if multi.size:
            counts = np.diff(np.append(start, n))
            first_pid = np.repeat(s_pid[start], counts)
            other_at = np.minimum.reduceat(np.where(s_pid != first_pid, np.arange(n), n), start)
            lo, hi = start[multi], other_at[multi]
            for i, lanes in _by_pair(s_site[lo], s_site[hi]):
                add("store/store", s_raw[lo[i]], int(s_pid[lo[i]]), int(s_pid[hi[i]]), int(s_site[lo[i]]),
                    int(s_site[hi[i]]), lanes)
        # store/load and store/atomic: another program touches an address one program stored
        for k, name in ((0, "store/load"), (2, "store/atomic")):
            sel = kind == k
            if not sel.any():
                continue
            o_addr, o_raw, o_pid, o_site = addr[sel], raw[sel], pid[sel], site[sel]
            idx = np.searchsorted(uniq, o_addr)
            idx_c = np.clip(idx, 0, len(uniq) - 1)
            hit = (idx < len(uniq)) & (uniq[idx_c] == o_addr)
            other = np.flatnonzero(hit & ((o_pid != pmin[idx_c]) | (pmin[idx_c] != pmax[idx_c])))
            if not other.size:
                continue
            u = idx_c[other]
            for i, lanes in _by_pair(s_site[start[u]], o_site[other]):
                lane, w = other[i], u[i]
                writer = int(pmin[w]) if int(pmin[w]) != int(o_pid[lane]) else int(pmax[w])
                add(name, int(o_raw[lane]), writer, int(o_pid[lane]), int(s_site[start[w]]), int(o_site[lane]), lanes)
        return list(found.values())


def _by_pair(first: np.ndarray, second: np.ndarray) -> list[tuple[int, int]]:
    """(index of the first occurrence, count) of each distinct (first, second) site pair, in the
    order the pairs first occur."""
    code = (first.astype(np.int64) << 32) | second.astype(np.int64)
    _, at, counts = np.unique(code, return_index=True, return_counts=True)
    order = np.argsort(at, kind="stable")
    return [(int(at[j]), int(counts[j])) for j in order]
