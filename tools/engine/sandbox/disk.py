"""What a sandbox child has put on the host's disk: the blocks of every file in its writable folders.

RLIMIT_FSIZE bounds one file; a child writing many files each under it filled 2.4 GB of the host's
disk. The parent adds up the folders a child can write (its working folder and transfer folders) while
a call runs and after it, and a sandbox over its disk budget is stopped (tools/engine/sandbox/worker.py).

The walk does not do the child's bidding (tools/engine/sandbox/safe_files.py): every folder is opened
with ``O_NOFOLLOW`` relative to its parent's descriptor, entries are read with ``lstat`` semantics, no
link is followed and no file is opened; a walk that meets more than ``max_entries`` names stops and
says so (a child creating millions of empty files is over budget as well).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tools.engine.sandbox.safe_files import DIR_FLAGS

MAX_ENTRIES = 100_000


@dataclass(frozen=True)
class DiskUse:
    bytes: int
    """Allocated bytes (``st_blocks`` * 512): a sparse file counts what it really holds."""
    entries: int
    truncated: bool
    """More than the walk's ``max_entries`` names: ``bytes`` is a lower bound."""


def identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of ``path`` itself (a link is not followed), or None where there is nothing."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def usage(folders: Iterable[Path], *, skip: frozenset[tuple[int, int]] | set[tuple[int, int]] = frozenset(),
          max_entries: int = MAX_ENTRIES) -> DiskUse:
    """Allocated bytes under ``folders``; files whose (device, inode) is in ``skip`` (the parent's own:
    the inputs it staged, the outputs it has taken) are not counted."""
    total, entries = 0, 0
    stack: list[int] = []
    for folder in folders:
        try:
            stack.append(os.open(folder, DIR_FLAGS))
        except OSError:
            continue
    try:
        while stack:
            fd = stack.pop()
            try:
                with os.scandir(fd) as it:
                    for entry in it:
                        entries += 1
                        if entries > max_entries:
                            return DiskUse(total, entries, True)
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        if (st.st_dev, st.st_ino) not in skip:
                            total += st.st_blocks * 512
                        if stat.S_ISDIR(st.st_mode):
                            try:
                                stack.append(os.open(entry.name, DIR_FLAGS, dir_fd=fd))
                            except OSError:
                                pass
            except OSError:
                pass
            finally:
                os.close(fd)
    finally:
        for fd in stack:
            os.close(fd)
    return DiskUse(total, entries, False)
