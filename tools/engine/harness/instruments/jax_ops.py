"""``jax_ops``: the JAX primitives a call executed, in the same record format as ``torch_ops``.

A Pallas submission's work is invisible to torch's dispatcher: ``jnp`` ops and ``pallas_call``
both run inside JAX. This recorder sees what JAX executes at the top level (outside any trace):

- every ``jax.jit`` call that misses the compilation cache (``pjit._run_python_pjit``): the jitted
  function's jaxpr is walked, sub-jaxprs (nested jit, cond, scan, while, custom_jvp/vjp) included;
- every primitive executed eagerly (``EvalTrace.process_primitive``), e.g. ``jnp.asarray`` glue.

Entries carry ``op`` (``jax::<primitive>``), ``family`` (named like torch's where one exists:
``dot_general`` is ``matmul``, ``reduce_sum`` is ``sum``), ``kind`` (view/alloc/movement/compute,
as in ``torch_ops``), ``cost`` (elementary operations: multiply-adds for ``dot_general`` and
convolutions, elements touched otherwise; a ``scan`` body counts ``length`` times) and ``site``
(the user's line from the equation's source info). A ``pallas_call`` is the submission's own
kernel: it is counted in ``pallas_calls`` (name, site, grid) and never as library work, and its
kernel body is not walked (that is the kernel, not work done around it).

A ``jax.jit`` hit in the C++ fast path executes no Python, so the recorder clears JAX's caches
when it starts (``clear_caches``): the first traced call of a function is always seen.

Private JAX internals used (jax/jaxlib are pinned; the integrity_pallas kernel families of
tests/e2e/test_kernel_verdicts.py fail loudly if they move): ``jax._src.pjit._run_python_pjit``,
``jax._src.core.EvalTrace.process_primitive``.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Iterator
from typing import Any, Self

import tools.engine.harness.frames as frames
from tools.engine.harness.instruments import instrument

_MAX_DISTINCT = 200
_MAX_DEPTH = 32

# Rationale: the same split as torch_ops: metadata-only and allocation primitives read no input
# values, movement primitives copy them, everything else computes.
_VIEW = {"reshape", "squeeze", "expand_dims", "broadcast_in_dim", "transpose", "bitcast_convert_type",
         "stop_gradient", "optimization_barrier", "sharding_constraint", "layout_constraint", "reshard",
         "mesh_cast", "pvary", "name", "stage"}
_ALLOC = {"iota", "full", "random_bits", "random_seed", "random_wrap", "random_unwrap", "random_split",
          "random_fold_in", "threefry2x32", "rng_bit_generator", "rng_uniform", "empty"}
_MOVEMENT = {"convert_element_type", "slice", "dynamic_slice", "dynamic_update_slice", "concatenate", "pad",
             "gather", "copy", "copy_p", "rev", "device_put", "select_n", "split", "squeeze_p", "tile",
             "scatter", "clamp"}
_FAMILY = {"dot_general": "matmul", "conv_general_dilated": "convolution", "reduce_sum": "sum",
           "reduce_max": "amax", "reduce_min": "amin", "reduce_prod": "prod", "argmax": "argmax",
           "argmin": "argmin", "cumsum": "cumsum", "cumprod": "cumprod", "cummax": "cummax",
           "exp": "exp", "log": "log", "tanh": "tanh", "logistic": "sigmoid", "erf": "erf",
           "rsqrt": "rsqrt", "sqrt": "sqrt", "max": "maximum", "min": "minimum", "add": "add",
           "sub": "sub", "mul": "mul", "div": "div", "integer_pow": "pow", "pow": "pow", "sort": "sort",
           "top_k": "topk"}
_SELF = frozenset({__file__})


def kind_of(name: str) -> str:
    if name in _VIEW:
        return "view"
    if name in _ALLOC:
        return "alloc"
    if name in _MOVEMENT:
        return "movement"
    return "compute"


def _numel(aval: Any) -> int:
    shape = getattr(aval, "shape", None)
    if shape is None:
        return 1
    try:
        return int(math.prod(int(d) for d in shape))
    except (TypeError, ValueError):
        return 1


def _spec(aval: Any) -> dict[str, Any]:
    return {"shape": [int(d) if isinstance(d, int) else str(d) for d in getattr(aval, "shape", ())],
            "dtype": str(getattr(aval, "dtype", "?"))}


def eqn_cost(name: str, params: dict[str, Any], in_avals: list[Any], out_avals: list[Any]) -> float:
    """Elementary operations of one primitive application (see the module docstring)."""
    out_n = max((_numel(a) for a in out_avals), default=0)
    try:
        if name == "dot_general" and len(in_avals) >= 2:
            (lhs_contract, _), _ = params["dimension_numbers"]
            k = math.prod(int(in_avals[0].shape[d]) for d in lhs_contract)
            return float(out_n * max(k, 1))
        if name == "conv_general_dilated" and len(in_avals) >= 2:
            rhs = in_avals[1]
            spec = params.get("dimension_numbers")
            out_dim = spec.rhs_spec[0] if spec is not None and hasattr(spec, "rhs_spec") else 0
            per_out = _numel(rhs) // max(int(rhs.shape[out_dim]), 1)
            return float(out_n * per_out)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        pass
    return float(max([out_n, *(_numel(a) for a in in_avals)]))


def _sub_jaxprs(params: dict[str, Any]) -> list[tuple[str, Any]]:
    from jax._src import core

    out: list[tuple[str, Any]] = []
    for key, value in params.items():
        items = value if isinstance(value, (tuple, list)) else (value,)
        for item in items:
            if isinstance(item, core.ClosedJaxpr):
                out.append((key, item.jaxpr))
            elif isinstance(item, core.Jaxpr):
                out.append((key, item))
    return out


class JaxOpRecorder:
    """Records JAX primitives executed while active (``with recorder:``); ``data`` is JSON-able."""

    def __init__(self, root: str | None = None, *, clear_caches: bool = True) -> None:
        self.root = root
        self.clear_caches = clear_caches
        self.data: dict[str, Any] = {"ops": [], "pallas_calls": [], "launches": 0, "jit_calls": 0,
                                     "truncated": False, "available": False}
        self._index: dict[tuple[str, str, int], dict[str, Any]] = {}
        self._kernels: dict[tuple[str, str, int], dict[str, Any]] = {}
        self._depth = 0
        self._stack = contextlib.ExitStack()

    # -- sites ---------------------------------------------------------------------------------
    def _eqn_site(self, eqn: Any, fallback: dict[str, Any] | None) -> dict[str, Any] | None:
        try:
            from jax._src import source_info_util

            for fr in source_info_util.user_frames(eqn.source_info.traceback):
                if frames.kind_of(fr.file_name) == "user":
                    return {"file": frames.relative(fr.file_name, self.root), "line": int(fr.start_line),
                            "function": fr.function_name}
        except Exception:  # noqa: BLE001, S110 - a site is a nicety, never a reason to fail
            pass
        return fallback

    def _caller_site(self) -> tuple[str, dict[str, Any] | None]:
        who, site = frames.origin(sys._getframe(1), self.root, skip=_SELF)
        return who, site

    # -- recording ------------------------------------------------------------------------------
    def _add(self, name: str, params: dict[str, Any], in_avals: list[Any], out_avals: list[Any],
             site: dict[str, Any] | None, times: float) -> None:
        if name == "pallas_call":
            self._kernel(params, site, times)
            return
        kind = kind_of(name)
        cost = eqn_cost(name, params, in_avals, out_avals) * times if kind in ("compute", "movement") else 0.0
        key = (name, str((site or {}).get("file", "")), int((site or {}).get("line") or 0))
        entry = self._index.get(key)
        if entry is None:
            if len(self._index) >= _MAX_DISTINCT:
                self.data["truncated"] = True
                return
            entry = {"op": f"jax::{name}", "family": _FAMILY.get(name, name), "kind": kind, "api": f"jax {name}",
                     "site": site, "count": 0, "cost": 0.0, "largest": None, "_numel": -1}
            self._index[key] = entry
            self.data["ops"].append(entry)
        entry["count"] += int(max(times, 1))
        entry["cost"] += cost
        numel = max((_numel(a) for a in in_avals), default=0)
        if numel > entry["_numel"]:
            entry["_numel"] = numel
            entry["largest"] = {"args": [_spec(a) for a in in_avals[:4]], "out": [_spec(a) for a in out_avals[:2]]}

    def _kernel(self, params: dict[str, Any], site: dict[str, Any] | None, times: float) -> None:
        self.data["launches"] += int(max(times, 1))
        debug = getattr(params.get("jaxpr"), "debug_info", None)
        src = str(getattr(debug, "func_src_info", "") or "")
        name = str(params.get("name") or src.split(" at ")[0] or "pallas_kernel")
        grid_mapping = params.get("grid_mapping")
        grid = [int(g) if isinstance(g, int) else str(g) for g in getattr(grid_mapping, "grid", ())]
        key = (name, str((site or {}).get("file", "")), int((site or {}).get("line") or 0))
        entry = self._kernels.get(key)
        if entry is None:
            entry = {"kernel": name, "grid": grid, "site": site, "line": (site or {}).get("line"), "count": 0}
            self._kernels[key] = entry
            self.data["pallas_calls"].append(entry)
        entry["count"] += int(max(times, 1))

    def _walk(self, jaxpr: Any, site: dict[str, Any] | None, times: float, depth: int = 0) -> None:
        if depth > _MAX_DEPTH:
            return
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            eqn_site = self._eqn_site(eqn, site)
            subs = _sub_jaxprs(eqn.params) if name != "pallas_call" else []
            if subs:
                mult = float(eqn.params.get("length", 1)) if name == "scan" else 1.0
                if name == "cond":
                    # one branch runs: count the costliest
                    for _, sub in subs[:1]:
                        self._walk(sub, eqn_site, times * mult, depth + 1)
                    continue
                for _, sub in subs:
                    self._walk(sub, eqn_site, times * mult, depth + 1)
                continue
            self._add(name, eqn.params, [v.aval for v in eqn.invars], [v.aval for v in eqn.outvars], eqn_site,
                      times)

    # -- the two hooks ----------------------------------------------------------------------------
    def _on_jit(self, original: Any) -> Any:
        recorder = self

        def run(p: Any, args_flat: Any, fun: Any, args: Any, kwargs: Any) -> Any:
            from jax._src import core

            # Rationale: a jitted function called while another is being traced (jnp.sum inside a
            # kernel body) also passes here; only calls outside every trace execute anything.
            if recorder._depth == 0 and core.trace_state_clean():
                try:
                    who, site = recorder._caller_site()
                    if who != "harness":
                        recorder.data["jit_calls"] += 1
                        recorder._walk(p.params["jaxpr"].jaxpr, site, 1.0)
                except Exception as exc:  # noqa: BLE001 - observing must never break the call
                    recorder.data.setdefault("record_errors", []).append(repr(exc)[:200])
            recorder._depth += 1
            try:
                return original(p, args_flat, fun, args, kwargs)
            finally:
                recorder._depth -= 1

        return run

    def _on_primitive(self, original: Any) -> Any:
        recorder = self

        def process_primitive(trace: Any, primitive: Any, args: Any, params: Any, /) -> Any:
            if recorder._depth == 0:
                try:
                    who, site = recorder._caller_site()
                    if who != "harness":
                        from jax._src import core

                        in_avals = [core.get_aval(a) for a in args]
                        subs = _sub_jaxprs(params)
                        if subs and primitive.name != "pallas_call":
                            for _, sub in subs[:1] if primitive.name == "cond" else subs:
                                recorder._walk(sub, site, 1.0)
                        else:
                            out_avals = in_avals[:1]
                            recorder._add(primitive.name, params, in_avals, out_avals, site, 1.0)
                except Exception as exc:  # noqa: BLE001 - observing must never break the call
                    recorder.data.setdefault("record_errors", []).append(repr(exc)[:200])
            recorder._depth += 1
            try:
                return original(trace, primitive, args, params)
            finally:
                recorder._depth -= 1

        return process_primitive

    def __enter__(self) -> Self:
        if "jax" not in sys.modules:
            return self  # no JAX in this child: nothing of it can run
        try:
            import jax
            from jax._src import core, pjit
        except ImportError:
            return self
        if not hasattr(pjit, "_run_python_pjit") or not hasattr(core.EvalTrace, "process_primitive"):
            self.data["error"] = "jax internals moved: JAX work cannot be observed"
            return self
        if self.clear_caches:
            jax.clear_caches()
        original_jit = pjit._run_python_pjit
        pjit._run_python_pjit = self._on_jit(original_jit)
        self._stack.callback(setattr, pjit, "_run_python_pjit", original_jit)
        original_prim = core.EvalTrace.process_primitive
        core.EvalTrace.process_primitive = self._on_primitive(original_prim)
        self._stack.callback(setattr, core.EvalTrace, "process_primitive", original_prim)
        self.data["available"] = True
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
        for entry in self.data["ops"]:
            entry.pop("_numel", None)
            entry["cost"] = float(entry["cost"])


def merge_into(trace: dict[str, Any], jax_data: dict[str, Any]) -> dict[str, Any]:
    """A torch_ops trace with the JAX recorder's operators added (both describe one call)."""
    merged = dict(trace)
    merged["ops"] = list(trace.get("ops", [])) + list(jax_data.get("ops", []))
    merged["jax"] = {k: jax_data.get(k) for k in ("pallas_calls", "launches", "jit_calls", "available",
                                                   "truncated", "error", "record_errors") if k in jax_data}
    return merged


@instrument("jax_ops")
@contextlib.contextmanager
def jax_ops(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    recorder = JaxOpRecorder(payload.get("user_root"))
    with recorder:
        yield recorder.data
