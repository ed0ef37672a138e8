"""Compiles a tool starts ahead, on one worker thread, while the tools before it run (issue 34).

The lowering and resources tools compile the submission's kernels for GPU targets (nvcc on CUDA sources;
Triton launches in a sandbox compile child, then ptxas). Those compiles read nothing the tools before them
produce, so the tool's ``prepare_static`` (at the plan) or ``prepare`` (once the submission runs) hands
them to a thread here, and the tool's node takes the answers (``take``), recording its evidence in the
order it always has. A job the thread did not finish, or that raised, is compiled again at the node the
way it was before.

Rationale: one thread per tool, and its jobs on it in order: the compile child answers one request at a
time, and each CUDA source's targets share one output folder. The thread never starts a sandbox child
(a job whose compile child is not running raises, and the node starts it), so the only processes it
forks are compiler tools (ptxas, nvdisasm, nvcc) in the toolchain's sandbox, whose ``preexec_fn`` only
sets resource limits; the modules they use are imported before the thread starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

R = TypeVar("R")


def _load_before_the_thread() -> None:
    """What the compiler runs load on first use, loaded in the calling (main) thread: the toolchain's
    sandbox and its seccomp filter (libseccomp, through ctypes). A library loaded on the worker thread
    while the main thread forks a sandbox child could leave the child waiting on the loader's lock."""
    from tools.engine.compilers import toolchain  # noqa: F401 - imported for its side effect
    from tools.engine.sandbox import bwrap  # noqa: F401
    from tools.engine.sandbox.seccomp_filter import filter_fd

    try:
        os.close(filter_fd())
    except Exception:  # noqa: BLE001, S110 - no filter here (no sandbox): the compiler reports that itself
        pass


class CompileAhead(Generic[R]):
    """Jobs run in submission order on one thread; each answer is taken at most once by its key."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._jobs: dict[Hashable, Future[R]] = {}

    def submit(self, key: Hashable, job: Callable[[], R]) -> None:
        if self._pool is None:
            _load_before_the_thread()
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kreview-compile-ahead")
        self._jobs[key] = self._pool.submit(job)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._jobs

    def take(self, key: Hashable) -> R | None:
        """The job's answer, waited for; None where no such job was started or it raised (the caller
        compiles it itself, as without a start ahead)."""
        fut = self._jobs.pop(key, None)
        if fut is None:
            return None
        try:
            return fut.result()
        except Exception:  # noqa: BLE001 - the node compiles it again and reports what that gives
            return None

    def close(self) -> None:
        """Wait for the thread's running job, drop the jobs not started, and end the thread."""
        for fut in self._jobs.values():
            fut.cancel()
        self._jobs.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
