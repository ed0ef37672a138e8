"""Read-only filesystem for a sandbox child, except the directories it must write.

Runs inside the child, first thing, when the child is in its own mount namespace
(tools/sandbox/isolation.py): every mount becomes read-only (``mount_setattr`` with
``AT_RECURSIVE``, Linux >= 5.12), then each writable directory is bind-mounted onto itself and made
writable again. The mounts belong to the child's namespace, so the rest of the machine is
unaffected. Without it a submission running as the reviewer's user could rewrite the reviewer's
installed code, the reference's copy of the task, another role's files, or the user's shell files.
Device nodes stay usable (a read-only mount does not stop writes to /dev/null).

Standard library only: it runs before anything else is imported in the child.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from pathlib import Path

_AT_FDCWD = -100
_AT_RECURSIVE = 0x8000
_MOUNT_ATTR_RDONLY = 0x1
_MS_BIND = 0x1000
_MS_REC = 0x4000
# mount_setattr is 442 on every architecture that has the unified syscall table (x86_64, aarch64).
_SYS_MOUNT_SETATTR = 442


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


class FsGuardError(OSError):
    pass


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _setattr(libc: ctypes.CDLL, path: str, *, set_: int = 0, clr: int = 0, recursive: bool) -> None:
    attr = _MountAttr(set_, clr, 0, 0)
    flags = _AT_RECURSIVE if recursive else 0
    rc = libc.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, path.encode(), flags, ctypes.byref(attr),
                      ctypes.c_size_t(ctypes.sizeof(attr)))
    if rc != 0:
        err = ctypes.get_errno()
        raise FsGuardError(err, f"mount_setattr({path}): {os.strerror(err)}")


def _bind(libc: ctypes.CDLL, path: str) -> None:
    rc = libc.mount(path.encode(), path.encode(), None, _MS_BIND | _MS_REC, None)
    if rc != 0:
        err = ctypes.get_errno()
        raise FsGuardError(err, f"bind mount {path}: {os.strerror(err)}")


def make_readonly_except(writable: list[str]) -> None:
    """Make the whole filesystem read-only in this mount namespace, except ``writable``."""
    if platform.system() != "Linux":
        raise FsGuardError(0, "read-only sandbox filesystem needs Linux mount namespaces")
    libc = _libc()
    paths = [str(Path(p).resolve()) for p in writable]
    for p in paths:
        os.makedirs(p, exist_ok=True)
    _setattr(libc, "/", set_=_MOUNT_ATTR_RDONLY, recursive=True)
    for p in paths:
        _bind(libc, p)
        _setattr(libc, p, clr=_MOUNT_ATTR_RDONLY, recursive=True)
    # The working directory still points into the mount it was opened on (now read-only); entering
    # it again by path resolves it through the new bind mounts, so relative writes work.
    os.chdir(os.getcwd())


def selftest(base: str) -> None:
    """Used by the isolation probe (in a fresh namespace): writes outside the writable directory
    must fail and writes inside must work. Exits 0 when both hold."""
    inside, outside = Path(base) / "w", Path(base) / "outside"
    make_readonly_except([str(inside)])
    (inside / "ok").write_text("ok")
    try:
        outside.write_text("no")
    except OSError:
        sys.exit(0)
    sys.exit(3)


if __name__ == "__main__":
    selftest(sys.argv[1])
