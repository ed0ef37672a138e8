"""A sandbox child's pid that is not always small (issue 28, item 3).

A child in its own pid namespace would otherwise always run as pid 2: a kernel could behave only when
its pid is small. The child's first process (pid 1 of the namespace, before any code of the task or
the submission is imported: tools/engine/sandbox/child.py ``boot``) raises the namespace's pid counter
by starting and joining threads that do nothing (libc ``getpid`` as their start routine), then forks
the process that serves requests, which so gets the pid ``target``. Pids are handed out in order, so
the same target gives the same pid: the same seed, the same pid, the same verdict.

Standard library only (it runs in the child before anything else).
"""

from __future__ import annotations

import ctypes
import math
import random
import threading

# Rationale: hundreds to tens of thousands; each pid costs one thread's start and join (about 20-40 us
# on the 2-core machine), so the highest target costs 0.2-0.4 s, paid in a child started ahead.
LOWEST = 300
HIGHEST = 16000
_HELPERS = 2
_LAST_PID = "/proc/sys/kernel/ns_last_pid"


def target_for(seed: int) -> int:
    """A pid drawn from ``seed``, log-uniform between ``LOWEST`` and ``HIGHEST``."""
    r = random.Random(f"pid-target-{seed}")
    return int(math.exp(r.uniform(math.log(LOWEST), math.log(HIGHEST))))


def _last_pid() -> int | None:
    try:
        with open(_LAST_PID) as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None


def _pid_max() -> int:
    try:
        with open("/proc/sys/kernel/pid_max") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return 32768


def raise_to(target: int) -> int | None:
    """Start and join threads until the next process started gets pid ``target`` (or as close below it
    as the limits allow). Returns the namespace's last pid afterwards (None where it cannot be read)."""
    target = min(int(target), _pid_max() - 1)
    libc = ctypes.CDLL(None, use_errno=True)
    create, join = libc.pthread_create, libc.pthread_join
    create.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    join.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
    start = ctypes.cast(libc.getpid, ctypes.c_void_p)
    failed = threading.Event()

    def spin(n: int) -> None:
        tid = ctypes.c_ulong()
        for _ in range(n):
            if create(ctypes.byref(tid), None, start, None) != 0:
                failed.set()
                return
            join(tid.value, None)

    last = _last_pid()
    if last is None:  # counted instead: the namespace's pid 1 has started nothing yet
        spin(max(0, target - 2))
        return None
    todo = target - 1 - last - _HELPERS
    if todo > 1000:
        helpers = [threading.Thread(target=spin, args=(todo // _HELPERS,)) for _ in range(_HELPERS)]
        for h in helpers:
            h.start()
        for h in helpers:
            h.join()
    # the rest one at a time, checked against the counter where it can be read
    while not failed.is_set():
        now = _last_pid()
        left = (target - 1 - now) if now is not None else 0
        if left <= 0:
            break
        spin(min(left, 64))
    return _last_pid()
