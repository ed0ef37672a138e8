"""A sandbox child's first process as the origin of its role's restarts (issue 34).

A child's start is its imports (torch, the preludes, the harness: about 1.6 s of CPU on the 2-core dev
machine), and a review restarts its submission child two or three times for a fresh process (the
integrity probes, memcheck). Where the child is the first process of its own pid namespace, that process
makes the imports once and then forks each serving process (tools/engine/sandbox/child.py ``boot``), so
a restart costs a fork (about 10 ms) instead of an interpreter and its imports. What a fresh child means
does not change:

- **One serving process at a time.** Before each fork the first process, as the namespace's init, kills
  every other process of the namespace and reaps them (``kill_all``), and empties the private ``/tmp``
  and ``/dev/shm`` (``empty_scratch``), as a new sandbox's tmpfs would be. The role's own folders (home,
  work folder, transfer folder) are kept, as they are across a restart that starts a new sandbox.
- **Nothing of the task or the submission ever runs in the first process**, and the serving processes
  cannot reach it: it is made non-dumpable before its first fork (``set_dumpable``), so its memory and
  its descriptors under ``/proc/1`` are closed to them (ptrace and process_vm_* are refused by the seccomp
  filter besides); only signals it handles reach the namespace's init (SIGCHLD, which wakes it to reap);
  each serving process closes every descriptor of the other serving processes and the control pipe
  before it answers anything.
- **Forks only where the copy is exact** (``forkable``): the first process has started no thread since
  its imports' own (numpy's OpenBLAS pool, which OpenBLAS stops around a fork itself) and holds no shared
  writable mapping a serving process could change for the next one. Otherwise, and where the parent asks
  for a pid of its own choosing, the restart starts a new sandbox as before.
- **Forks only while nothing drifted** (``state``, ``drift``): what a serving process could leave for the
  next one beyond its memory (entries in the tmpfs folders and ``/dev``, SysV IPC objects, the first
  process's scheduling, limits, memory-kill score and signal dispositions, which same-user checks let it
  change) is recorded before the first fork and compared, after the emptying, before every other; any
  difference, or an emptying past ``MAX_ENTRIES``, and the first process ends without forking, so the
  restart starts a new sandbox. POSIX message queues cannot be listed: no child may create one
  (``RLIMIT_MSGQUEUE`` 0, tools/engine/sandbox/worker.py).

Standard library only; imported by the child before anything of the task or the submission.
"""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_DUMPABLE = 4
SCRATCH = ("/tmp", "/dev/shm")


def set_dumpable(on: bool) -> None:
    """``prctl(PR_SET_DUMPABLE)``: off, the process's ``/proc`` files (memory, descriptors, environment) are
    closed to processes of the same user that are not its ancestors."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE) failed")


def thread_count() -> int:
    return len(os.listdir("/proc/self/task"))


def shared_writable_mappings() -> list[str]:
    """Lines of ``/proc/self/maps`` mapped shared and writable: memory a forked process would share with
    this one and with the next fork."""
    out = []
    with open("/proc/self/maps") as fh:
        for line in fh:
            fields = line.split(maxsplit=2)
            perms = fields[1] if len(fields) > 1 else ""
            if len(perms) >= 4 and perms[1] == "w" and perms[3] == "s":
                out.append(line.strip())
    return out


def forkable(threads_after_imports: int) -> list[str]:
    """Why this process must not be forked for a serving process (empty: it may)."""
    why = []
    if (n := thread_count()) > threads_after_imports:
        why.append(f"{n} threads, {threads_after_imports} after the imports")
    if shared := shared_writable_mappings():
        why.append(f"shared writable mappings: {shared[:2]}")
    return why


def kill_all() -> None:
    """As the pid namespace's init: kill every other process of the namespace and reap each (orphans
    included) until none is left."""
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


# Rationale: emptying a tmpfs of more entries than this (a submission can make a million) would make the
# restart slower than a new sandbox; past it the fork is refused and the restart starts one
MAX_ENTRIES = 20000


def empty_scratch(keep: frozenset[str] = frozenset(), folders: tuple[str, ...] = SCRATCH) -> bool:
    """Remove what the sandbox's processes left in its private tmpfs folders (none of them is left to hold
    it). Only entries on the tmpfs itself go: the folders bound from the host under ``/tmp`` (the role's
    work, home and transfer folders; a folder of another file system is never entered) stay as they are,
    and so do the tmpfs folders on the way to them (their removal fails: they are not empty). Folders are
    made writable first (a submission can lock them); ``keep``: the paths there before the first fork,
    left as they are. False past ``MAX_ENTRIES`` entries (what is left is then found by ``drift``); what
    cannot be removed is found there too."""
    seen = 0
    for folder in folders:
        try:
            dev = os.lstat(folder).st_dev
        except OSError:
            continue
        # iterative, children before their folder: a submission's nesting cannot exhaust the stack
        stack: list[tuple[str, bool]] = [(folder, False)]
        while stack:
            path, listed = stack.pop()
            if listed:
                if path != folder and path not in keep:
                    try:
                        os.rmdir(path)
                    except OSError:
                        pass
                continue
            stack.append((path, True))
            try:
                if path not in keep and path != folder:
                    os.chmod(path, 0o700)  # a folder a submission made: no process is left to swap it for a link
                entries = os.scandir(path)
            except OSError:
                continue
            with entries:
                for entry in entries:  # read as it goes: a folder of a million entries stops at the cap
                    seen += 1
                    if seen > MAX_ENTRIES:
                        return False
                    _remove(entry, dev, keep, stack)
    return True


def _remove(entry: os.DirEntry, dev: int, keep: frozenset[str], stack: list[tuple[str, bool]]) -> None:
    """One entry of ``empty_scratch``: a file or link unlinked, a folder queued (entered before removed)."""
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return
    if st.st_dev != dev:
        return  # a mount point: a bound folder of the host, never entered
    if entry.is_dir(follow_symlinks=False):
        stack.append((entry.path, False))
    elif entry.path not in keep:
        try:
            os.unlink(entry.path)
        except OSError:
            pass


_FS_IOC_GETFLAGS = 0x80086601


def _flags(path: str, mode: int) -> int | str:
    """A folder's or file's inode flags (``chattr``): they outlive the process that set them."""
    import fcntl
    import stat

    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
        return ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    try:
        return int.from_bytes(fcntl.ioctl(fd, _FS_IOC_GETFLAGS, bytes(8))[:4], "little")
    except OSError:
        return "n/a"
    finally:
        os.close(fd)


def _xattrs(path: str) -> tuple[tuple[str, bytes], ...] | str:
    try:
        return tuple(sorted((n, os.getxattr(path, n, follow_symlinks=False))
                            for n in os.listxattr(path, follow_symlinks=False)))
    except OSError as exc:
        return "n/a" if exc.errno in (95, 61) else f"unreadable: {exc.strerror}"  # EOPNOTSUPP, ENODATA


def _entry(path: str, st: os.stat_result, own: bool) -> tuple:
    """What a child could leave on one entry: its mode and link target; on the tmpfs itself (not a bound
    folder's mount point) also its modification time, extended attributes and inode flags."""
    import stat

    link = os.readlink(path) if stat.S_ISLNK(st.st_mode) else ""
    if not own:
        return (path, st.st_mode, link)
    return (path, st.st_mode, link, st.st_mtime_ns, _xattrs(path), _flags(path, st.st_mode))


def _tree(folder: str) -> frozenset[tuple]:
    """``folder`` and every entry of its file system under it (``_entry``), mount points as entries not
    entered; raises OSError where any part cannot be read (a path too long, a locked folder) or there are
    more than ``MAX_ENTRIES``."""
    top = os.lstat(folder)
    dev = top.st_dev
    out: set[tuple] = {_entry(folder, top, True)}
    stack = [folder]
    while stack:
        path = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                st = entry.stat(follow_symlinks=False)
                out.add(_entry(entry.path, st, st.st_dev == dev))
                if len(out) > MAX_ENTRIES:
                    raise OSError(f"more than {MAX_ENTRIES} entries under {folder}")
                if st.st_dev == dev and entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return frozenset(out)


def restore_times(before: dict[str, object], folders: tuple[str, ...] = SCRATCH) -> None:
    """Put back the modification times ``state`` recorded on the tmpfs folders' kept entries (the emptying,
    and a child's files, changed their folders'): a time a child set is then no message to the next."""
    for folder in folders:
        tree = before.get(f"tree {folder}")
        if not isinstance(tree, frozenset):
            continue
        for item in tree:
            if len(item) > 3:
                try:
                    os.utime(item[0], ns=(item[3], item[3]), follow_symlinks=False)
                except OSError:
                    pass


def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read().strip()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


# the system calls without a libc wrapper, by architecture: ioprio_get(2), sched_getattr(2)
_SYSCALLS = {"ioprio_get": {"x86_64": 252, "aarch64": 31}, "sched_getattr": {"x86_64": 315, "aarch64": 275}}


def _syscall(name: str, *args: object) -> int | None:
    """``name`` called through libc's ``syscall`` (None on an architecture not in ``_SYSCALLS``)."""
    import platform

    number = _SYSCALLS[name].get(platform.machine())
    return None if number is None else ctypes.CDLL(None, use_errno=True).syscall(number, *args)


def _io_priority() -> str:
    got = _syscall("ioprio_get", 1, 0)  # IOPRIO_WHO_PROCESS, this process
    return "unknown" if got is None else str(got)


def _sysv_objects() -> list[str]:
    """SysV shared memory segments, message queues and semaphore sets of the IPC namespace."""
    out = []
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as fh:
                out += [f"{kind} {line.split()[1]}" for line in fh.readlines()[1:] if line.strip()]
        except (OSError, IndexError):
            continue
    return out


def _sched_attr() -> str:
    """The whole scheduling attribute (policy, nice, runtime, deadline, period, flags, clamps), as hex;
    struct sched_attr as of Linux 4.13 (56 bytes)."""
    buf = ctypes.create_string_buffer(56)
    got = _syscall("sched_getattr", 0, buf, 56, 0)
    if got is None:
        return "unknown"
    if got != 0:
        return f"unreadable: {os.strerror(ctypes.get_errno())}"
    return buf.raw.hex()


def _sockets() -> dict[str, list[str]]:
    """The network namespace's sockets (a TCP socket in TIME_WAIT outlives the process that closed it)."""
    out = {}
    for name in ("tcp", "tcp6", "udp", "udp6", "raw", "raw6", "unix"):
        try:
            with open(f"/proc/net/{name}") as fh:
                out[name] = fh.readlines()[1:]
        except OSError:
            continue
    return out


def state(folders: tuple[str, ...] = (*SCRATCH, "/dev")) -> dict[str, object]:
    """What a serving process inherits from this process or finds in the sandbox, beyond memory: the tmpfs
    folders' and ``/dev``'s entries, SysV IPC objects, and this process's scheduling, I/O priority, limits, memory-kill
    score, signal dispositions and threads (a serving process can change several of them in the first
    process: same-user checks allow it, non-dumpable does not stop it). ``drift`` compares two."""
    import resource

    out: dict[str, object] = {}
    for folder in folders:
        try:
            out[f"tree {folder}"] = _tree(folder)
        except OSError as exc:
            out[f"tree {folder}"] = f"unreadable: {exc}"
    out["sysv ipc"] = _sysv_objects()
    out["sockets"] = _sockets()
    out["scheduling attributes"] = _sched_attr()
    out["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
    out["scheduler"] = os.sched_getscheduler(0)
    out["affinity"] = sorted(os.sched_getaffinity(0))
    out["io priority"] = _io_priority()
    out["limits"] = {name: resource.getrlimit(getattr(resource, name))
                     for name in dir(resource) if name.startswith("RLIMIT_")}
    for name in ("oom_score_adj", "coredump_filter", "autogroup", "timerslack_ns"):
        out[name] = _read(f"/proc/self/{name}")
    status = dict(line.split(":", 1) for line in _read("/proc/self/status").splitlines() if ":" in line)
    for key in ("SigCgt", "SigIgn", "SigBlk"):
        out[key] = status.get(key, "").strip()
    return out


def drift(before: dict[str, object]) -> list[str]:
    """What differs from ``before`` now (``state``): empty where a fork would be as a new sandbox's child."""
    now = state(tuple(key[len("tree "):] for key in before if key.startswith("tree ")))
    return [f"{key}: {str(before.get(key))[:200]} -> {str(now.get(key))[:200]}"
            for key in sorted(set(before) | set(now)) if before.get(key) != now.get(key)]


def take_fds(own: tuple[int, int, int], base: tuple[int, int, int | None]) -> None:
    """In a serving process: its own request, reply and alarm descriptors moved to the numbers the first
    process's were at (the reply function and the alarm hook were sealed with those numbers)."""
    for fd, at in zip(own, base):
        if at is None:
            os.close(fd)
            continue
        os.dup2(fd, at, inheritable=False)
        os.close(fd)
    if base[2] is not None:
        os.set_blocking(base[2], False)  # as the alarm hook set its first descriptor


def park_fds(base: tuple[int, int, int | None]) -> None:
    """In the first process after its first fork: the numbers of the first serving process's descriptors
    held on ``/dev/null``, so its own ends are closed (the parent sees that process's pipes close with it)
    and no later descriptor of the first process takes those numbers."""
    null = os.open(os.devnull, os.O_RDWR)
    for at in base:
        if at is not None:
            os.dup2(null, at, inheritable=False)
    os.close(null)


def exit_status(status: int) -> int:
    """A wait status as the exit code the namespace's init ends with (128 + the signal for a process
    killed by one, as bubblewrap's init does)."""
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def kept_paths(before: dict[str, object], folders: tuple[str, ...] = SCRATCH) -> frozenset[str]:
    """The tmpfs folders' entries recorded by ``state`` before the first fork (the way to the bound folders)."""
    out: set[str] = set()
    for folder in folders:
        tree = before.get(f"tree {folder}")
        if isinstance(tree, frozenset):
            out |= {item[0] for item in tree}
    return frozenset(out)
