"""Where reviews run: an ``Executor`` takes tasks and yields their outcomes as they finish.

Both executors give a task two attempts: a task that raises, or whose process (or node) dies, runs
once more; after the second failure the outcome carries ``error`` and no value. The caller records
that as a reviewer failure, never as a verdict.
"""

from __future__ import annotations

import multiprocessing
import time
import traceback
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from reviewer.core.errors import UsageError

ATTEMPTS = 2  # the first run and one retry
RAY_HINT = "pip install 'kernel-reviewer[ray]'"
# seconds before the second and third try to connect to a Ray cluster at an address
CONNECT_RETRY_S = (3.0, 10.0)


@dataclass(frozen=True)
class Resources:
    """What one task asks of the node that runs it (Ray schedules on these; local ignores them)."""

    num_cpus: float = 1.0
    num_gpus: float = 0.0
    memory_mb: int = 2048


@dataclass
class Task:
    key: str
    fn: Callable[..., Any]  # a module-level function: it is pickled by reference
    args: tuple[Any, ...]
    resources: Resources = field(default_factory=Resources)


@dataclass
class Outcome:
    task: Task
    value: Any = None
    error: str | None = None
    attempts: int | None = 1  # None: not known (Ray retries a task without telling the driver)


class Executor(ABC):
    name: str

    @abstractmethod
    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Run every task; yield each outcome as soon as it is final (completion order)."""

    def describe(self) -> str:
        return self.name

    def close(self) -> None:  # noqa: B027 - optional hook
        pass

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _err(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}\n{''.join(traceback.format_exception(exc))[-2000:]}"


class LocalExecutor(Executor):
    """``workers`` processes on this machine (``workers=1``: in this process, one task at a time)."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise UsageError("--workers must be at least 1")
        self.workers = workers

    def describe(self) -> str:
        return f"local ({self.workers} worker{'s' if self.workers > 1 else ''})"

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        tasks = list(tasks)
        if self.workers == 1:
            yield from self._inline(tasks)
        else:
            yield from self._pool(tasks)

    @staticmethod
    def _inline(tasks: list[Task]) -> Iterator[Outcome]:
        for t in tasks:
            error = None
            for attempt in range(1, ATTEMPTS + 1):
                try:
                    value = t.fn(*t.args)
                except Exception as exc:  # noqa: BLE001 - retried once, then reported
                    error = _err(exc)
                    continue
                yield Outcome(t, value=value, attempts=attempt)
                break
            else:
                yield Outcome(t, error=error, attempts=ATTEMPTS)

    def _pool(self, tasks: list[Task]) -> Iterator[Outcome]:
        """At most ``workers`` tasks in flight. A worker process that dies breaks the whole pool and
        fails every task in flight, so a broken pool charges no attempt: its tasks run again in a
        fresh pool, and a task caught in two breaks runs alone (one process, where a death is its
        own) for its two attempts. An exception a task raises is its own attempt."""
        ctx = multiprocessing.get_context("spawn")
        queue = list(reversed(tasks))
        alone: list[Task] = []
        attempts: dict[str, int] = {}
        breaks: dict[str, int] = {}
        pending: dict[Future, tuple[Task, int]] = {}  # the task and the pool generation it went to
        gen = 0
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx)
        try:
            while queue or pending:
                while queue and len(pending) < self.workers:
                    t = queue.pop()
                    try:
                        pending[pool.submit(t.fn, *t.args)] = (t, gen)
                    except BrokenProcessPool:
                        queue.append(t)
                        break
                if not pending:  # the pool broke before anything was in flight: a fresh one
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool, gen = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx), gen + 1
                    continue
                done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                broken = False
                for fut in done:
                    t, g = pending.pop(fut)
                    try:
                        value = fut.result()
                    except BrokenProcessPool:
                        broken = broken or g == gen
                        breaks[t.key] = breaks.get(t.key, 0) + 1
                        (alone if breaks[t.key] >= 2 else queue).append(t)
                        continue
                    except Exception as exc:  # noqa: BLE001 - the task raised: its own attempt
                        attempts[t.key] = attempts.get(t.key, 0) + 1
                        if attempts[t.key] < ATTEMPTS:
                            queue.append(t)
                        else:
                            yield Outcome(t, error=_err(exc), attempts=attempts[t.key])
                        continue
                    yield Outcome(t, value=value, attempts=attempts.get(t.key, 0) + 1)
                if broken:  # the current pool is dead: a fresh one (older pools' futures are only requeued)
                    pool.shutdown(wait=False, cancel_futures=True)
                    pool, gen = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx), gen + 1
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        for t in alone:
            yield self._alone(t, ctx, attempts.get(t.key, 0))

    @staticmethod
    def _alone(t: Task, ctx: Any, used: int) -> Outcome:
        error = None
        for attempt in range(used + 1, ATTEMPTS + 1):
            with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as one:
                try:
                    return Outcome(t, value=one.submit(t.fn, *t.args).result(), attempts=attempt)
                except Exception as exc:  # noqa: BLE001 - raised, or its process died: its own
                    error = _err(exc)
        return Outcome(t, error=error, attempts=ATTEMPTS)


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


class RayExecutor(Executor):
    """One Ray task per review on a cluster (``address``: ``auto``, ``ray://host:10001``, or ``None``
    to start a local one-node cluster for this batch with ``num_cpus`` CPUs)."""

    name = "ray"

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None,
                 init_kwargs: dict[str, Any] | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise UsageError(f"--executor ray needs Ray, which is not installed: {RAY_HINT}") from exc
        self._ray = ray
        self._owns = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": "WARNING"}
            if address:
                kwargs["address"] = address
            else:
                kwargs.update(num_cpus=num_cpus, include_dashboard=False)
            kwargs.update(init_kwargs or {})
            # Rationale: a busy or just-started cluster refuses a first connection now and then (Ray
            # Client: "Initialization failure from server" while its per-client server starts); a
            # remote address is tried again twice, 3 s then 10 s later, before it is reported.
            waits = CONNECT_RETRY_S if address else ()
            for attempt in range(len(waits) + 1):
                try:
                    ray.init(**kwargs)
                    break
                except (ConnectionError, TimeoutError, ValueError) as exc:  # ValueError: ray:// without ray[client]
                    if attempt < len(waits) and not isinstance(exc, ValueError):
                        try:
                            ray.shutdown()
                        except Exception:  # noqa: BLE001 - nothing was connected
                            pass
                        time.sleep(waits[attempt])
                        continue
                    where = f"no Ray cluster at {address!r}" if address else "could not start a one-node Ray cluster"
                    raise UsageError(f"{where}: {exc}",
                                     hint="start one with `ray start --head` (or pass no --address for a "
                                          "one-node cluster on this machine)") from exc
            self._owns = True
        self._remote: dict[tuple[Callable[..., Any], bool], Any] = {}

    def describe(self) -> str:
        res = self._ray.cluster_resources()
        nodes = [n for n in self._ray.nodes() if n.get("Alive")]
        return (f"ray ({len(nodes)} node{'s' if len(nodes) != 1 else ''}, {res.get('CPU', 0):g} CPUs, "
                f"{res.get('GPU', 0):g} GPUs)")

    def has_gpus(self) -> bool:
        return self._ray.cluster_resources().get("GPU", 0) > 0

    def fits(self, r: Resources) -> str | None:
        """Why no live node could ever run a task asking for ``r`` (``None``: some node can)."""
        best = {"CPU": 0.0, "GPU": 0.0, "memory": 0.0}
        for n in self._ray.nodes():
            if not n.get("Alive"):
                continue
            have = n.get("Resources", {})
            if (have.get("CPU", 0) >= r.num_cpus and have.get("GPU", 0) >= r.num_gpus
                    and have.get("memory", 0) >= r.memory_mb * 2**20):
                return None
            for k in best:
                best[k] = max(best[k], have.get(k, 0.0))
        return (f"no node of the cluster has {r.num_cpus:g} CPUs, {r.num_gpus:g} GPUs and {r.memory_mb} MiB "
                f"of memory for one review (largest node: {best['CPU']:g} CPUs, {best['GPU']:g} GPUs, "
                f"{best['memory'] / 2**20:.0f} MiB)")

    def _remote_for(self, fn: Callable[..., Any], gpu: bool) -> Any:
        # Rationale: a GPU review gets a fresh worker process (max_calls=1, as Ray's own default for
        # GPU functions): the reviewer's parent process initialises CUDA on the GPU it was given, and a
        # reused worker would carry that context (its memory, its device) into the next review, whose
        # GPU Ray may assign differently. CPU reviews reuse workers: the reviewer is imported once each.
        key = (fn, gpu)
        if key not in self._remote:
            self._remote[key] = self._ray.remote(max_calls=1)(fn) if gpu else self._ray.remote(fn)
        return self._remote[key]

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        ray = self._ray
        tasks = list(tasks)
        for res in {t.resources for t in tasks}:  # one look at the nodes per distinct request
            why = self.fits(res)
            if why:  # Ray would wait forever for such a node: say so now
                raise UsageError(f"{why}; lower --cpus-per-review/--memory-mb-per-review or use --device cpu")
        pending: dict[Any, Task] = {}
        for t in tasks:
            r = t.resources
            ref = self._remote_for(t.fn, r.num_gpus > 0).options(
                num_cpus=r.num_cpus, num_gpus=r.num_gpus, memory=r.memory_mb * 2**20,
                max_retries=ATTEMPTS - 1, retry_exceptions=True, name=f"kreview:{t.key}"[:100],
            ).remote(*t.args)
            pending[ref] = t
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    t = pending.pop(ref)
                    try:
                        value = ray.get(ref)
                    except ray.exceptions.RayError as exc:  # raised twice, or its worker/node died twice
                        yield Outcome(t, error=_err(exc), attempts=ATTEMPTS)
                        continue
                    yield Outcome(t, value=value, attempts=None)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()


def make_executor(kind: str, *, workers: int = 1, address: str | None = None,
                  warn: Callable[[str], None] | None = None) -> Executor:
    """``local`` or ``ray``; ``ray`` without Ray installed falls back to local and says how to get it."""
    if kind not in ("local", "ray"):
        raise UsageError(f"--executor must be local or ray, not {kind!r}")
    if kind == "ray":
        if ray_available():
            return RayExecutor(address, num_cpus=workers if not address and workers > 1 else None)
        if address:
            raise UsageError(f"--address {address} needs Ray, which is not installed: {RAY_HINT}")
        if warn:
            warn(f"Ray is not installed, so this batch runs on the local executor ({workers} worker"
                 f"{'s' if workers > 1 else ''}); to run it on Ray: {RAY_HINT}")
    elif address:
        raise UsageError("--address is for --executor ray")
    return LocalExecutor(workers)
