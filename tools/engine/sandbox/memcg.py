"""One memory budget for a whole sandbox child: all its processes and the files of its private
``/tmp`` and ``/dev/shm`` (tmpfs pages are charged to the cgroup of the process that wrote them).

RLIMIT_AS bounds each process alone: three forked children reached 6.3 GiB under a 6 GiB limit each.
As root the child is put in a memory cgroup of its own (cgroup v1 ``memory`` hierarchy:
``memory.limit_in_bytes``; cgroup v2: ``memory.max`` in the child's pids cgroup, see pids.py) and a
kill by the cgroup's OOM killer is reported as the breach of that budget. Not root, or no writable
memory cgroup: only the per-process limit holds, and the review's environment says so.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

from tools.engine.sandbox.pids import Cgroup, PidsCgroup, oom_kills


def _v1_dirs() -> list[Path]:
    out = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            out.append(Path("/sys/fs/cgroup/memory") / path.lstrip("/"))
    return out


def memory_limit_kind() -> str:
    """How a sandbox's memory is bounded on this machine, tried once."""
    if os.geteuid() == 0:
        pids = PidsCgroup.create(memory=2**30)
        if pids is not None:
            v2 = pids.memory
            pids.kill_and_remove()
            if v2:
                return "memory.max per sandbox (cgroup v2) and RLIMIT_AS per process"
        cg = MemoryCgroup.create(2**30)
        if cg is not None:
            cg.kill_and_remove()
            return "memory.limit_in_bytes per sandbox (cgroup v1) and RLIMIT_AS per process"
    return "RLIMIT_AS per process only (no writable memory cgroup)"


class MemoryCgroup(Cgroup):
    """A fresh v1 memory cgroup with a limit; ``enter()`` (in the child, before exec) joins it."""

    def __init__(self, path: Path, limit: int) -> None:
        super().__init__(path)
        self.limit = limit

    @classmethod
    def create(cls, limit: int) -> MemoryCgroup | None:
        if os.geteuid() != 0:
            return None
        for base in _v1_dirs():
            if not (base / "memory.limit_in_bytes").exists():
                continue
            path = base / f"kreview-{os.getpid()}-{uuid.uuid4().hex[:8]}"
            try:
                path.mkdir()
            except OSError:
                continue
            try:
                (path / "memory.limit_in_bytes").write_text(str(limit))
                # with swap accounting: no swapping past the budget either
                with contextlib.suppress(OSError):
                    (path / "memory.memsw.limit_in_bytes").write_text(str(limit))
                return cls(path, limit)
            except OSError:
                with contextlib.suppress(OSError):
                    path.rmdir()
        return None

    def oom_kills(self) -> int:
        return oom_kills(self.path)
