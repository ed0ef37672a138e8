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
            perms = line.split(maxsplit=2)[1] if len(line.split(maxsplit=2)) > 1 else ""
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


def empty_scratch(folders: tuple[str, ...] = SCRATCH) -> None:
    """Remove what the sandbox's processes left in its private tmpfs folders (none of them is left to hold
    it). Only entries on the tmpfs itself go: the folders bound from the host under ``/tmp`` (the role's
    work, home and transfer folders; a folder of another file system is never entered) stay as they are,
    and so do the tmpfs folders on the way to them (their removal fails: they are not empty)."""
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
                if path != folder:
                    try:
                        os.rmdir(path)
                    except OSError:
                        pass
                continue
            stack.append((path, True))
            try:
                entries = list(os.scandir(path))
            except OSError:
                continue
            for entry in entries:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if st.st_dev != dev:
                    continue  # a mount point: a bound folder of the host, never entered
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, False))
                else:
                    try:
                        os.unlink(entry.path)
                    except OSError:
                        pass


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
