"""Prelude for Pallas children: every ``pallas_call`` runs in the interpreter mode the reviewer picks.

A submission written for a TPU or GPU calls ``pl.pallas_call(...)`` without ``interpret``; on a
CPU that cannot run. This prelude wraps ``pallas_call`` before any user code is imported so that
the reviewer chooses the mode of every call, whatever the submission asked for:

- ``interpret``: ``interpret=True`` (the HLO interpreter; fast, but dynamic out-of-bounds indices
  are silently clamped and grid points run one at a time in order);
- ``tpu``: ``pltpu.InterpretParams(...)`` (the TPU interpreter: race detection, out-of-bounds reads
  raise, uninitialised memory is NaN, 2 simulated cores, a seeded shuffle of the grid order);
- ``native``: what the submission asked for (a machine whose jaxlib can run the kernel for real).

The mode lives in ``STATE`` and is switched by the ``pallas`` instrument for one call; switching
clears JAX's caches so a ``jax.jit``-cached trace from another mode is not reused. Recorders
registered by the instrument see every call (kernel, output shapes, keyword arguments, inputs).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any

# Rationale: 2 simulated cores is the smallest count at which parallel grid dimensions are split
# and cross-core races can happen; more cores only cost interpreter time on a 2-core reviewer.
TPU_CORES = 2

STATE: dict[str, Any] = {"mode": "native", "seed": None, "recorders": [], "installed": False}
Recorder = Callable[[Any, Any, dict[str, Any], tuple[Any, ...]], None]


def tpu_params(seed: int | None) -> Any:
    from jax.experimental.pallas import tpu as pltpu

    return pltpu.InterpretParams(detect_races=True, out_of_bounds_reads="raise", uninitialized_memory="nan",
                                 num_cores_or_threads=TPU_CORES, random_seed=seed)


def _interpret_value(requested: Any) -> Any:
    mode = STATE["mode"]
    if mode == "tpu":
        return tpu_params(STATE["seed"])
    if mode == "interpret":
        # A submission that already asks for an interpreter keeps its own choice of interpreter.
        return requested if requested else True
    return requested


def set_mode(mode: str, seed: int | None = None, *, retrace: bool = False) -> None:
    """Switch every later ``pallas_call`` to ``mode`` (interpret | tpu | native). ``retrace``
    clears JAX's caches even when the mode stays, so recorders see every ``pallas_call`` again."""
    import jax
    from jax.experimental.pallas import tpu as pltpu

    if mode not in ("interpret", "tpu", "native"):
        raise ValueError(f"unknown Pallas mode {mode!r}")
    if (mode, seed) == (STATE["mode"], STATE["seed"]):
        if retrace:
            jax.clear_caches()
        return
    STATE["mode"], STATE["seed"] = mode, seed
    # pl.kernel / core_map read the interpret mode from this config rather than an argument.
    pltpu.set_tpu_interpret_mode(tpu_params(seed) if mode == "tpu" else None)
    jax.clear_caches()


def _wrap(real: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(real)
    def pallas_call(kernel: Any, out_shape: Any = None, *args: Any, **kwargs: Any) -> Any:
        requested = dict(kwargs)
        kwargs["interpret"] = _interpret_value(kwargs.get("interpret", False))
        fn = real(kernel, out_shape, *args, **kwargs)
        if not STATE["recorders"]:
            return fn

        @functools.wraps(fn)
        def call(*call_args: Any) -> Any:
            for recorder in list(STATE["recorders"]):
                recorder(kernel, out_shape, requested, call_args)
            return fn(*call_args)

        return call

    pallas_call.__kreview_wrapped__ = real  # type: ignore[attr-defined]
    return pallas_call


def real_pallas_call() -> Callable[..., Any]:
    from jax._src.pallas import pallas_call as impl

    fn = impl.pallas_call
    return getattr(fn, "__kreview_wrapped__", fn)


def install(config: dict[str, Any]) -> None:
    if STATE["installed"]:
        return
    import jax.experimental.pallas as pl
    from jax._src.pallas import pallas_call as impl

    wrapped = _wrap(impl.pallas_call)
    impl.pallas_call = wrapped
    pl.pallas_call = wrapped
    STATE["installed"] = True
    set_mode(os.environ.get("KREVIEW_PALLAS_MODE", "interpret"))
