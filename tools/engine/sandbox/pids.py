"""A process-count limit that holds for a sandbox child, also when the reviewer is root.

RLIMIT_NPROC does not bind root (the kernel exempts uid 0 in the initial namespace, and a user
namespace does not change the real uid), so as root each child is put in a cgroup of its own with
``pids.max`` (cgroup v2 or the v1 ``pids`` hierarchy, whichever this process may write). As any
other user, RLIMIT_NPROC set to the user's current process count plus the allowance does bind.
Neither available: the limit is ``None`` and the review's environment says so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

# Rationale: torch/OpenMP/triton threads count as tasks; a review child uses a few dozen.
PIDS_MAX = 512


def _own_cgroup_dirs() -> list[Path]:
    out = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            out.append(Path("/sys/fs/cgroup") / path.lstrip("/"))
            out.append(Path("/sys/fs/cgroup/unified") / path.lstrip("/"))
        elif "pids" in controllers.split(","):
            out.append(Path("/sys/fs/cgroup/pids") / path.lstrip("/"))
    return out


class Cgroup:
    """A cgroup the reviewer made for one sandbox child: the child joins it, the parent empties and
    removes it (the pids cgroup here, the memory cgroup of tools/engine/sandbox/memcg.py)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def enter(self) -> None:
        """Runs in the forked child before exec: async-signal-safe enough (one write)."""
        fd = os.open(str(self.path / "cgroup.procs"), os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)

    def kill_and_remove(self) -> None:
        """Kill every process in the cgroup until it is empty (for at most about a second), then remove it."""
        # Rationale: a killed child is gone within a few milliseconds; a fixed 50 ms wait after each kill
        # was 0.3 s of every review spent waiting (issue 34). The waits double from 1 ms to 50 ms.
        wait, waited = 0.001, 0.0
        while waited < 1.0:
            try:
                pids = [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
            except OSError:
                return
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(wait)
            waited += wait
            wait = min(wait * 2, 0.05)
        with contextlib.suppress(OSError):
            self.path.rmdir()


class PidsCgroup(Cgroup):
    """A fresh cgroup with ``pids.max``; ``enter()`` (in the child, before exec) joins it."""

    def __init__(self, path: Path, memory: bool = False) -> None:
        super().__init__(path)
        self.memory = memory  # memory.max set as well (cgroup v2: one cgroup for every controller)

    @classmethod
    def create(cls, limit: int = PIDS_MAX, memory: int | None = None) -> PidsCgroup | None:
        if os.geteuid() != 0:
            return None
        for base in _own_cgroup_dirs():
            if not (base / "cgroup.procs").exists():
                continue
            path = base / f"kreview-{os.getpid()}-{uuid.uuid4().hex[:8]}"
            try:
                path.mkdir()
            except OSError:
                continue
            try:
                (path / "pids.max").write_text(str(limit))
                has_memory = False
                if memory is not None and (path / "memory.max").exists():
                    # one budget for the whole sandbox (tools/engine/sandbox/memcg.py), no swap past it
                    try:
                        (path / "memory.max").write_text(str(memory))
                        with contextlib.suppress(OSError):
                            (path / "memory.swap.max").write_text("0")
                        has_memory = True
                    except OSError:
                        pass
                return cls(path, has_memory)
            except OSError:
                with contextlib.suppress(OSError):
                    path.rmdir()
        return None

    def oom_kills(self) -> int:
        return oom_kills(self.path) if self.memory else 0




def oom_kills(path: Path) -> int:
    """The OOM kills counted in a cgroup (v1 ``memory.oom_control``, v2 ``memory.events``)."""
    for name in ("memory.events", "memory.oom_control"):
        try:
            text = (path / name).read_text()
        except OSError:
            continue
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
    return 0


def user_task_count() -> int:
    """Tasks (threads included: RLIMIT_NPROC counts them) of this real uid now."""
    uid, n = os.getuid(), 0
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if p.stat().st_uid == uid:
                    n += len(os.listdir(p / "task"))
            except OSError:
                pass
    return n


def pids_limit_kind() -> str:
    """How a child's process count is bounded on this machine, tried once."""
    if os.geteuid() != 0:
        return f"RLIMIT_NPROC (the user's tasks + {PIDS_MAX})"
    cg = PidsCgroup.create()
    if cg is None:
        return "none (root, and no writable pids cgroup)"
    cg.kill_and_remove()
    return f"pids.max {PIDS_MAX} (cgroup)"
