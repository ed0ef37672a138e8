"""``pallas``: run one submission call in a chosen Pallas interpreter mode and observe its kernels.

Options (``payload["instrument_options"]["pallas"]``):
  ``mode``   ``interpret`` | ``tpu`` | ``native`` (see tools/engine/harness/pallas_shim.py), ``seed`` the
             TPU interpreter's grid-order seed;
  ``lower``  platforms to lower every distinct ``pallas_call`` for after the call, without a
             device: ``tpu`` (Mosaic), ``triton`` (CUDA through Triton), ``mosaic_gpu``.
Data: every distinct ``pallas_call`` (kernel name, file and line, grid, block and array shapes,
dimension semantics, compiler-params family), races the TPU interpreter printed, and per platform
the lowering status, error and IR text (StableHLO module and the kernel IR ``debug=True`` prints).

Private JAX internals used (jax/jaxlib are pinned at 0.10.2; tests fail loudly if they move):
``race_detection_state`` prints each race with the module-level ``print`` and
``interpret_pallas_call.races`` holds the last kernel's detector.
"""

from __future__ import annotations

import contextlib
import functools
import io
from collections.abc import Iterator
from typing import Any

import tools.engine.harness.pallas_shim as pallas_shim
from tools.engine.harness.instruments import instrument

_MAX_DISTINCT = 32
_MAX_RACES = 20
_MAX_IR = 400_000
_PLATFORMS = ("tpu", "triton", "mosaic_gpu")


def _kernel_site(kernel: Any) -> dict[str, Any]:
    fn = kernel
    while isinstance(fn, functools.partial):
        fn = fn.func
    code = getattr(fn, "__code__", None)
    return {"kernel": getattr(fn, "__name__", type(fn).__name__),
            "file": code.co_filename if code else None, "line": code.co_firstlineno if code else None}


def _avals(args: tuple[Any, ...]) -> Any:
    import jax

    return jax.tree_util.tree_map(lambda a: jax.ShapeDtypeStruct(a.shape, a.dtype), args)


def _dim(d: Any) -> Any:
    size = getattr(d, "block_size", d)
    return int(size) if isinstance(size, int) else repr(d)


def _family(params: Any) -> str | None:
    """Which backend a call's compiler params are written for: tpu, triton or mosaic_gpu."""
    if params is None:
        return None
    mod = type(params).__module__
    for key, fam in (("mosaic_gpu", "mosaic_gpu"), ("triton", "triton"), ("mosaic", "tpu")):
        if key in mod:
            return fam
    return None


def _describe(kernel: Any, out_shape: Any, kwargs: dict[str, Any], avals: Any) -> dict[str, Any]:
    import jax

    kw = {**kwargs, "interpret": False, "debug": False}
    info: dict[str, Any] = _kernel_site(kernel)
    cp = kwargs.get("compiler_params")
    info["compiler_params"] = type(cp).__name__ if cp is not None else None
    info["family"] = _family(cp)
    info["dimension_semantics"] = [str(s) for s in (getattr(cp, "dimension_semantics", None) or [])]
    info["interpret_requested"] = repr(kwargs.get("interpret", False))[:80]
    jaxpr = jax.make_jaxpr(pallas_shim.real_pallas_call()(kernel, out_shape, **kw))(*avals)
    eqn = next((e for e in jaxpr.jaxpr.eqns if e.primitive.name == "pallas_call"), None)
    if eqn is None:
        return info
    gm = eqn.params["grid_mapping"]
    info["grid"] = [int(g) if isinstance(g, int) else repr(g) for g in gm.grid]
    info["blocks"] = [{"origin": str(getattr(bm, "origin", "")),
                       "block_shape": [_dim(d) for d in bm.block_shape],
                       "array_shape": [int(s) for s in bm.array_aval.shape],
                       "dtype": str(bm.array_aval.dtype)} for bm in gm.block_mappings]
    return info


def _mosaic_gpu_switch(on: bool) -> Any | None:
    """JAX's switch between the Triton and the Mosaic GPU lowering of Pallas, set to ``on``: a flag of
    ``jax._src.config`` in JAX 0.10, of ``jax._src.pallas.pallas_call`` in 0.9; None when this JAX has
    neither (then the GPU lowerings cannot be chosen, which is the reviewer's limit, not the kernel's)."""
    from jax._src import config

    state = getattr(config, "jax_pallas_use_mosaic_gpu", None)
    if state is None:
        from jax._src.pallas import pallas_call

        state = getattr(pallas_call, "_PALLAS_USE_MOSAIC_GPU", None)
    return state(on) if callable(state) else None


def _lower(kernel: Any, out_shape: Any, kwargs: dict[str, Any], avals: Any, platform: str) -> dict[str, Any]:
    import time

    import jax
    from jax import export

    t0 = time.perf_counter()
    out: dict[str, Any] = {"platform": platform}
    switch = _mosaic_gpu_switch(platform == "mosaic_gpu")
    if switch is None and platform != "tpu":
        out.update(status="unavailable", seconds=0.0,
                   message=f"this JAX ({jax.__version__}) has no switch between the Triton and Mosaic GPU "
                           f"lowerings of Pallas that the reviewer knows; {platform} lowering not attempted")
        return out
    fn = pallas_shim.real_pallas_call()(kernel, out_shape, **{**kwargs, "interpret": False, "debug": True})
    printed = io.StringIO()
    checks = [export.DisabledSafetyCheck.custom_call(name)
              for name in ("__gpu$xla.gpu.triton", "mosaic_gpu", "mosaic_gpu_v2")]
    try:
        with contextlib.redirect_stdout(printed), (switch or contextlib.nullcontext()):
            exported = export.export(jax.jit(fn), platforms=("tpu" if platform == "tpu" else "cuda",),
                                     disabled_checks=checks)(*avals)
        out.update(status="ok", module=exported.mlir_module()[:_MAX_IR])
    except Exception as exc:  # noqa: BLE001 - a lowering error is the finding
        out.update(status="error", error_type=type(exc).__name__, message=str(exc)[:3000])
    out["kernel_ir"] = printed.getvalue()[:_MAX_IR]
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


class _RaceLog:
    """Collects the TPU interpreter's race reports while installed."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.count = 0
        self._module: Any = None

    def install(self) -> str | None:
        try:
            from jax._src.pallas.mosaic.interpret import race_detection_state as rds
        except ImportError as exc:
            return f"jax's race detector moved ({exc}); races cannot be observed"
        if not hasattr(rds, "RaceDetectionState"):
            return "jax's race detector moved (no RaceDetectionState); races cannot be observed"
        self._module = rds

        def capture(*args: Any, **kwargs: Any) -> None:
            self.count += 1
            if len(self.messages) < _MAX_RACES:
                self.messages.append(" ".join(str(a) for a in args)[:1500])

        rds.print = capture  # type: ignore[attr-defined]
        return None

    def uninstall(self) -> None:
        if self._module is not None and "print" in vars(self._module):
            del self._module.print

    def flagged(self) -> bool:
        from jax._src.pallas.mosaic.interpret import interpret_pallas_call as ipc

        races = getattr(ipc, "races", None)
        return self.count > 0 or bool(getattr(races, "races_found", False))


@instrument("pallas")
@contextlib.contextmanager
def pallas(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    opts = (payload.get("instrument_options") or {}).get("pallas") or {}
    data: dict[str, Any] = {"total": 0, "calls": [], "races": [], "race_count": 0, "truncated": False}
    if not pallas_shim.STATE["installed"]:
        data["error"] = "the Pallas prelude (tools.engine.harness.pallas_shim) is not installed in this child"
        yield data
        return
    before = (pallas_shim.STATE["mode"], pallas_shim.STATE["seed"])
    mode, seed = opts.get("mode", before[0]), opts.get("seed")
    lower = [p for p in opts.get("lower", []) if p in _PLATFORMS]
    data.update(mode=mode, seed=seed)
    seen: dict[str, tuple[Any, Any, dict[str, Any], Any]] = {}

    def record(kernel: Any, out_shape: Any, kwargs: dict[str, Any], args: tuple[Any, ...]) -> None:
        data["total"] += 1
        avals = _avals(args)
        key = repr((_kernel_site(kernel), avals, sorted((k, repr(v)) for k, v in kwargs.items())))
        if key not in seen and len(seen) < _MAX_DISTINCT:
            seen[key] = (kernel, out_shape, kwargs, avals)
        elif key not in seen:
            data["truncated"] = True

    races = _RaceLog()
    if mode == "tpu":
        from jax.experimental.pallas import tpu as pltpu

        pltpu.reset_tpu_interpret_mode_state()  # no race state left over from an earlier call
        problem = races.install()
        if problem:
            data["error"] = problem
    # A jax.jit-cached trace would call no pallas_call at all: retrace so every call is seen.
    pallas_shim.set_mode(mode, seed, retrace=True)
    pallas_shim.STATE["recorders"].append(record)
    try:
        try:
            yield data
        except BaseException:
            if mode == "tpu":
                # Rationale: after an exception the TPU interpreter keeps its simulated memory;
                # without a reset every later TPU-mode call in this child fails.
                pltpu.reset_tpu_interpret_mode_state()
            raise
        if mode == "tpu":
            data.update(races=races.messages, race_count=races.count, races_found=races.flagged())
        for kernel, out_shape, kwargs, avals in seen.values():
            try:
                entry = _describe(kernel, out_shape, kwargs, avals)
            except Exception as exc:  # noqa: BLE001 - describing must not fail the call
                entry = {**_kernel_site(kernel), "describe_error": f"{type(exc).__name__}: {exc}"[:500]}
            entry["lowering"] = [_lower(kernel, out_shape, kwargs, avals, p) for p in lower]
            data["calls"].append(entry)
    finally:
        pallas_shim.STATE["recorders"].remove(record)
        races.uninstall()
        pallas_shim.set_mode(*before)
