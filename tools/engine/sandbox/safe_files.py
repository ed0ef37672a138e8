"""Parent-side access to folders a sandbox child can write, without doing the child's bidding.

A child may at any moment (a thread it left running between requests) replace any name in its
writable folders with a symlink to a host file, a FIFO, a device or a folder. The parent therefore
never opens such a path by name with the ordinary calls: it walks from a folder only it can write
(``anchor``, e.g. the session's root) one component at a time with ``O_NOFOLLOW``, opens the last
name with ``O_NOFOLLOW | O_NONBLOCK``, and checks with ``fstat`` on the descriptor it holds that it
got a regular file of bounded size. Writes go to a name it first unlinks and then creates with
``O_EXCL``, so nothing the child left there is followed or overwritten.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from pathlib import Path

# Rationale: a child's output file is loaded into memory whole; more than this is the child's failure.
READ_CAP = 4 * 2**30
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeFile(OSError):
    """A path under a child-writable folder that is not what the parent expects (a link, a FIFO, too big)."""


def plain_name(name: object, *, limit: int = 120) -> str:
    """``name`` as one plain file name for the reviewer's own process to write under a folder of its own:
    characters outside ``[A-Za-z0-9_.-]`` become ``_``, leading dots are dropped (never ``.`` or ``..``,
    never hidden), at most ``limit`` characters, ``_`` if nothing is left. For names a submission chose:
    a kernel's, an artifact's."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).lstrip(".")[:limit] or "_"


def _parts(path: Path, anchor: Path) -> list[str]:
    path, anchor = Path(os.path.abspath(path)), Path(os.path.abspath(anchor))
    if not path.is_relative_to(anchor):
        raise UnsafeFile(errno.EXDEV, f"{path} is not under {anchor}")
    parts = list(path.relative_to(anchor).parts)
    if any(p in ("..", ".") for p in parts):
        raise UnsafeFile(errno.EINVAL, f"{path}: relative components")
    return parts


def open_dir(path: Path, *, anchor: Path, create: bool = False, replace: bool = False) -> int:
    """A descriptor of folder ``path`` under ``anchor``, no component a symlink (created if ``create``;
    with ``replace`` a link or file standing where a folder belongs is removed and the folder made:
    for folders that belong to the child, whose content the parent rewrites anyway)."""
    # the anchor itself is the parent's (a link to it, say a symlinked TMPDIR, is fine)
    fd = os.open(anchor, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in _parts(path, anchor):
            if create:
                try:
                    os.mkdir(name, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                nxt = os.open(name, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                if not (create and replace):
                    raise UnsafeFile(exc.errno, f"{path}: {name} is not a folder (a link or a file)") from exc
                unlink_at(fd, name)
                os.mkdir(name, 0o755, dir_fd=fd)
                nxt = os.open(name, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _leaf(path: Path, anchor: Path, create: bool = False, replace: bool = False) -> tuple[int, str]:
    path = Path(os.path.abspath(path))
    if path == Path(os.path.abspath(anchor)):
        raise UnsafeFile(errno.EINVAL, f"{path} is the anchor itself")
    return open_dir(path.parent, anchor=anchor, create=create, replace=replace), path.name


def read_bytes(path: Path, *, anchor: Path, cap: int = READ_CAP) -> bytes:
    """The content of regular file ``path``; ``UnsafeFile`` for a link, FIFO, device, folder or a file over ``cap``."""
    dfd, name = _leaf(path, anchor)
    try:
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafeFile(exc.errno, f"{path} is a symbolic link; not followed") from exc
            raise
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(errno.EINVAL, f"{path} is not a regular file; not read")
        if st.st_size > cap:
            raise UnsafeFile(errno.EFBIG, f"{path} is larger than {cap} bytes; not read")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > cap:  # grew while read
                raise UnsafeFile(errno.EFBIG, f"{path} is larger than {cap} bytes; not read")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_bytes(path: Path, data: bytes, *, anchor: Path, replace: bool = True) -> None:
    """Write ``data`` as a new regular file ``path``: whatever stood at that name is unlinked, never
    followed (``replace``), or, without ``replace``, left alone (``FileExistsError``); links among
    the folders on the way are replaced by folders only with ``replace``."""
    dfd, name = _leaf(path, anchor, create=True, replace=replace)
    try:
        if replace:
            unlink_at(dfd, name)
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
    finally:
        os.close(dfd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def unlink_at(dfd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=dfd)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        raise UnsafeFile(errno.EISDIR, f"{name} is a folder; not replaced") from None
    except PermissionError as exc:  # Linux answers EPERM for unlink on a folder
        if exc.errno == errno.EPERM:
            raise UnsafeFile(errno.EISDIR, f"{name} is a folder; not replaced") from None
        raise


def unlink(path: Path, *, anchor: Path) -> None:
    """Remove ``path`` if present (a link is removed itself, not its target); missing folders are fine."""
    try:
        dfd, name = _leaf(path, anchor)
    except (FileNotFoundError, UnsafeFile):
        return
    try:
        unlink_at(dfd, name)
    finally:
        os.close(dfd)


def names(path: Path, *, anchor: Path) -> list[str]:
    """The entries of folder ``path`` (empty if it is missing or not a real folder)."""
    try:
        fd = open_dir(path, anchor=anchor)
    except (FileNotFoundError, UnsafeFile):
        return []
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


def is_regular(path: Path, *, anchor: Path) -> bool:
    """Whether ``path`` is, at this moment, a regular file reached through real folders (advice only:
    the reads above check again on the descriptor)."""
    try:
        dfd, name = _leaf(path, anchor)
    except (OSError, UnsafeFile):
        return False
    try:
        return stat.S_ISREG(os.stat(name, dir_fd=dfd, follow_symlinks=False).st_mode)
    except OSError:
        return False
    finally:
        os.close(dfd)


def remove_tree(path: Path | str) -> None:
    """Remove ``path`` and everything under it, however deep, ignoring errors (what
    ``shutil.rmtree(path, ignore_errors=True)`` does, for folders a child could write).

    Rationale: ``shutil.rmtree`` recurses once per folder level, so a child that left 3,000 nested
    folders in its own folder made the parent's clean-up raise ``RecursionError``: the review crashed
    without a verdict, and the sandbox folder it left made every later review on the machine crash
    the same way (``_remove_stale_roots``). This walk keeps one descriptor and a list of the folders
    above it; it goes back up through ``..`` only to the folder it came from (the same device and
    inode, or it stops), opens every folder with ``O_NOFOLLOW`` and removes links, never their targets."""
    path = Path(os.path.abspath(path))
    try:
        top = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    fd = -1
    try:
        try:
            fd = os.open(path.name, DIR_FLAGS, dir_fd=top)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # a link or a file where the folder was
                with contextlib.suppress(OSError):
                    os.unlink(path.name, dir_fd=top)
            return
        # the way down: per level, the folder's (device, inode), the name taken below it, and the
        # names below it that could not be removed (not entered again)
        above: list[tuple[tuple[int, int], str, set[str]]] = []
        stuck: set[str] = set()
        while True:
            sub = None
            try:
                with os.scandir(fd) as it:
                    for entry in it:
                        if entry.name in stuck:
                            continue
                        try:
                            if entry.is_dir(follow_symlinks=False):
                                sub = entry.name
                                break
                            os.unlink(entry.name, dir_fd=fd)
                        except OSError:
                            stuck.add(entry.name)
            except OSError:
                pass
            if sub is not None:
                try:
                    nxt = os.open(sub, DIR_FLAGS, dir_fd=fd)
                except OSError:
                    stuck.add(sub)
                    continue
                st = os.fstat(fd)
                above.append(((st.st_dev, st.st_ino), sub, stuck))
                os.close(fd)
                fd, stuck = nxt, set()
                continue
            if not above:
                break
            (dev, ino), name, stuck = above.pop()
            up = os.open("..", DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = up
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != (dev, ino):  # moved meanwhile: act nowhere else
                return
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                stuck.add(name)
        os.close(fd)
        fd = -1
        with contextlib.suppress(OSError):
            os.rmdir(path.name, dir_fd=top)
    except OSError:
        return
    finally:
        if fd >= 0:
            os.close(fd)
        os.close(top)
