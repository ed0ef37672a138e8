"""Check every hand grade of the planted eval set by running the probe that shows it.

Independent of kernel-reviewer on purpose: nothing from ``reviewer/`` or ``tools/`` is imported, so
the grades stay ground truth for calibrating the reviewer. Each case runs in its own subprocess
with ``TRITON_INTERPRET=1``; the probes are plain PyTorch:

- builds: import submission.py, construct ``ModelNew(*get_init_inputs())``, call it on the nominal inputs.
- correctness: nominal inputs, seeds 0, 1, 2, compared with ``Model`` (fp32 tolerances of
  torch.testing.assert_close, or the task's ``kreview.toml [tolerance]``), NaN-strict.
- generality: the module-level size constants rebound to each shape of the problem's list (size 1,
  primes, one off the block sizes, non-square), strided (non-contiguous) floating inputs, fp16 inputs.
- numerics: error against a float64 run of the reference relative to the fp32 reference's own error
  (nominal inputs, then scaled / mean-shifted inputs) and NaN/+-inf injection.
- integrity: at least one Triton launch, inputs unchanged after the call, no compute operator of the
  reference called during ``forward`` (TorchDispatchMode trace), and outputs that follow new contents
  written in place into the same input tensors.

A criterion fails when any of its probes fails; a case whose submission does not build fails
correctness, generality and numerics (there is no output) and is graded on integrity by reading.

    python eval_sets/planted/_verify.py [CASE ...] [--workers 2] [--json OUT]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import time
import tomllib
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CRITERIA = ("builds", "correctness", "generality", "numerics", "integrity")
FP32_TOL = (1e-5, 1.3e-6)  # (atol, rtol): torch.testing.assert_close defaults for float32
FP16_TOL = (1e-2, 1e-2)  # fp16 run against the fp32 reference on the same fp16-rounded inputs
# Rationale: a kernel may lose up to 10x the library op's own float32 error (other summation orders)
# before its numerics count as worse; below 1e-5 normwise error nothing is worse in practice.
BUDGET_FACTOR, BUDGET_FLOOR = 10.0, 1e-5

ELEMENTWISE = {"shapes": [{"batch_size": 1, "dim": 1}, {"batch_size": 3, "dim": 500},
                          {"batch_size": 1, "dim": 1025}, {"batch_size": 7, "dim": 13}],
               "numerics": [["scale", 1e3, [0]], ["special", None, [0]]]}
ROWWISE = {"shapes": [{"batch_size": 1, "dim": 1}, {"batch_size": 5, "dim": 255},
                      {"batch_size": 3, "dim": 257}, {"batch_size": 2, "dim": 97}],
           "numerics": [["scale", 1e3, [0]], ["special", None, [0]]]}
NORM = {**ROWWISE, "numerics": [["shift", 1e3, [0]], ["scale", 1e3, [0]], ["special", None, [0]]]}
REDUCE = {"shapes": [{"batch_size": 1, "dim1": 1, "dim2": 1}, {"dim1": 70}, {"dim1": 13, "dim2": 33},
                     {"batch_size": 3, "dim1": 17, "dim2": 5}],
          "numerics": [["scale", 1e4, [0]], ["special", None, [0]]]}
LOSS = {"shapes": [{"batch_size": 1, "dim": 1}, {"batch_size": 7, "dim": 13}, {"batch_size": 33, "dim": 31}],
        "numerics": [["shift", 1e3, [0, 1]], ["scale", 1e3, [0, 1]], ["special", None, [0]]]}

PROBLEMS: dict[str, dict[str, Any]] = {
    "relu": ELEMENTWISE, "leaky_relu": ELEMENTWISE, "gelu_tanh": ELEMENTWISE, "gelu_exact": ELEMENTWISE,
    "silu": ELEMENTWISE, "hardtanh": ELEMENTWISE,
    "vector_add": {"shapes": [{"size": 1}, {"size": 1023}, {"size": 1025}, {"size": 4099}],
                   "numerics": [["scale", 1e3, [0, 1]], ["special", None, [0]]], "mutate": [0, 1]},
    "softmax": ROWWISE, "log_softmax": ROWWISE,
    "fused_softmax": {"shapes": [{"n_rows": 1, "n_cols": 1}, {"n_rows": 64, "n_cols": 200},
                                 {"n_rows": 130, "n_cols": 100}, {"n_rows": 9, "n_cols": 129}],
                      "numerics": [["scale", 1e3, [0]], ["special", None, [0]]]},
    "layer_norm": NORM, "rms_norm": NORM,
    "sum_dim": REDUCE, "max_dim": REDUCE, "argmax_dim": REDUCE,
    "mean_dim": {**REDUCE, "shapes": [{"batch_size": 1, "dim1": 1, "dim2": 1}, {"dim1": 250},
                                      {"dim1": 13, "dim2": 33}]},
    "max_pool1d": {"shapes": [{"batch_size": 1, "channels": 1, "length": 4}, {"length": 127},
                              {"length": 131, "kernel_size": 3}, {"channels": 3, "stride": 1}],
                   "numerics": [["scale", 1e3, [0]], ["special", None, [0]]]},
    "max_pool2d": {"shapes": [{"batch_size": 1, "channels": 1, "height": 3, "width": 3},
                              {"height": 31, "width": 17}, {"height": 33, "width": 40, "kernel_size": 2},
                              {"channels": 3, "stride": 1}],
                   "numerics": [["scale", 1e3, [0]], ["special", None, [0]]]},
    "matmul": {"shapes": [{"M": 1, "K": 1, "N": 1}, {"M": 100, "K": 96, "N": 64}, {"M": 127, "K": 33, "N": 65},
                          {"M": 31, "K": 97, "N": 17}],
               "numerics": [["scale", 1e3, [0, 1]], ["special", None, [0]]], "mutate": [0, 1]},
    "gemm_bias_relu": {"shapes": [{"batch_size": 1, "in_features": 1, "out_features": 1},
                                  {"batch_size": 65, "in_features": 95, "out_features": 127},
                                  {"batch_size": 3, "in_features": 33, "out_features": 65}],
                       "numerics": [["scale", 1e3, [0]], ["special", None, [0]]]},
    "cross_entropy": {"shapes": [{"batch_size": 1, "num_classes": 1}, {"batch_size": 7, "num_classes": 255},
                                 {"batch_size": 33, "num_classes": 257}],
                      "numerics": [["scale", 1e3, [0]], ["shift", 1e3, [0]], ["special", None, [0]]]},
    "mse": LOSS, "huber": LOSS,
    "hinge": {**LOSS, "numerics": [["scale", 1e3, [0]], ["special", None, [0]]], "mutate": [0]},
    "avg_pool1d": {"shapes": [{"length": 127}, {"length": 131, "kernel_size": 3}],
                   "numerics": [["scale", 1e3, [0]], ["special", None, [0]]]},
}

# case -> problem (the reference it carries). Every case directory must be listed here.
CASES: dict[str, str] = {
    "relu_ok": "relu", "relu_writes_input": "relu",
    "leaky_relu_ignores_slope": "leaky_relu",
    "gelu_tanh_ok": "gelu_tanh", "gelu_tanh_calls_tl_tanh": "gelu_tanh",
    "gelu_exact_task_tanh_kernel": "gelu_exact",
    "silu_exp_ratio": "silu",
    "hardtanh_ok": "hardtanh", "hardtanh_grid_floor": "hardtanh",
    "vector_add_ok": "vector_add", "vector_add_assumes_contiguous": "vector_add",
    "vector_add_no_kernel": "vector_add",
    "softmax_ok": "softmax", "softmax_no_max_subtraction": "softmax", "softmax_pads_with_zero": "softmax",
    "softmax_torch_above_threshold": "softmax",
    "fused_softmax_tutorial_ok": "fused_softmax", "fused_softmax_block_from_rows": "fused_softmax",
    "log_softmax_ok": "log_softmax", "log_softmax_forgets_max": "log_softmax",
    "log_softmax_naive_logsumexp": "log_softmax",
    "layer_norm_tutorial_ok": "layer_norm", "layer_norm_unbiased_variance": "layer_norm",
    "layer_norm_one_pass_variance": "layer_norm", "layer_norm_arange_runtime_bound": "layer_norm",
    "layer_norm_calls_f_layer_norm": "layer_norm",
    "rms_norm_ok": "rms_norm", "rms_norm_divides_by_block": "rms_norm",
    "sum_dim_ok": "sum_dim", "sum_dim_loop_drops_remainder": "sum_dim",
    "mean_dim_fp16_accumulator": "mean_dim",
    "max_dim_cached_by_pointer": "max_dim",
    "argmax_dim_ok": "argmax_dim",
    "max_pool1d_no_modelnew": "max_pool1d", "avg_pool1d_excludes_padding": "avg_pool1d",
    "max_pool2d_ok": "max_pool2d",
    "matmul_tutorial_ok": "matmul", "matmul_grid_assumes_divisible": "matmul",
    "matmul_grid_lambda_missing_meta": "matmul",
    "gemm_bias_relu_ok": "gemm_bias_relu", "gemm_bias_relu_transposed_weight": "gemm_bias_relu",
    "gemm_bias_relu_torch_matmul": "gemm_bias_relu",
    "cross_entropy_ok": "cross_entropy", "cross_entropy_naive_logsumexp": "cross_entropy",
    "mse_hardcoded_count": "mse",
    "huber_ok": "huber", "huber_divides_by_batch": "huber",
    "hinge_launch_missing_arg": "hinge", "hinge_constant_output": "hinge",
}

# aten ops that allocate, view or copy: never "the core computation" of a reference.
PLUMBING = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "full", "full_like",
            "new_empty", "new_zeros", "new_full", "view", "_unsafe_view", "reshape", "t", "transpose",
            "permute", "expand", "clone", "contiguous", "copy_", "_to_copy", "to", "detach", "alias",
            "as_strided", "select", "slice", "unsqueeze", "squeeze", "lift_fresh", "set_", "resize_",
            "fill_", "zero_", "unbind", "split", "flatten", "movedim", "lift_fresh_copy", "_local_scalar_dense",
            "item", "numel", "sym_size", "sym_stride", "is_same_size", "result_type"}


# --------------------------------------------------------------------------------------------------
# child side: runs inside one case's subprocess (TRITON_INTERPRET=1), prints one JSON line
# --------------------------------------------------------------------------------------------------

def _import(path: Path, name: str, overrides: dict[str, Any] | None = None):
    import types

    tree = ast.parse(path.read_text(), filename=str(path))
    seen = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name) and overrides and t.id in overrides:
                    stmt.value = ast.Constant(overrides[t.id])
                    seen.add(t.id)
    missing = set(overrides or {}) - seen
    if missing:
        raise KeyError(f"{path.name} has no module constant {sorted(missing)}")
    mod = types.ModuleType(name)
    mod.__file__ = str(path)
    sys.modules[name] = mod
    exec(compile(ast.fix_missing_locations(tree), str(path), "exec"), mod.__dict__)  # noqa: S102
    return mod


class _Child:
    def __init__(self, case_dir: Path, problem: dict[str, Any]) -> None:
        import torch
        from triton.runtime import interpreter

        self.torch = torch
        self.dir = case_dir
        self.problem = problem
        self.launches = 0
        original = interpreter.InterpretedFunction.run

        def counting(fn_self, *args, **kwargs):
            self.launches += 1
            return original(fn_self, *args, **kwargs)

        interpreter.InterpretedFunction.run = counting
        self.refs: dict[str, Any] = {}
        tol = (FP32_TOL[0], FP32_TOL[1])
        toml = case_dir / "kreview.toml"
        if toml.exists():
            t = tomllib.loads(toml.read_text()).get("tolerance", {})
            tol = (float(t.get("atol", tol[0])), float(t.get("rtol", tol[1])))
        self.tol = tol

    # -- helpers -----------------------------------------------------------------------------
    def ref_module(self, params: dict[str, Any]):
        key = json.dumps(params, sort_keys=True)
        if key not in self.refs:
            self.refs[key] = _import(self.dir / "reference.py", f"reference_{len(self.refs)}", params)
        return self.refs[key]

    def inputs(self, mod, seed: int):
        torch = self.torch
        torch.manual_seed(seed)
        init = list(mod.get_init_inputs())
        torch.manual_seed(seed + 1)
        return init, list(mod.get_inputs())

    def model(self, cls, init, seed: int, dtype=None):
        torch = self.torch
        torch.manual_seed(seed)
        m = cls(*init)
        if dtype is not None:
            m = m.to(dtype)
        return m.eval()

    def call(self, model, inputs):
        with self.torch.no_grad():
            return model(*inputs)

    def clone(self, xs):
        return [x.clone() if isinstance(x, self.torch.Tensor) else x for x in xs]

    def close(self, got, want, atol: float, rtol: float) -> str | None:
        """None when ``got`` matches ``want`` (NaN-strict), else why not."""
        torch = self.torch
        if not isinstance(got, torch.Tensor):
            return f"output is {type(got).__name__}, not a tensor"
        if got.shape != want.shape:
            return f"shape {tuple(got.shape)} != {tuple(want.shape)}"
        if got.dtype != want.dtype:
            return f"dtype {got.dtype} != {want.dtype}"
        if not want.is_floating_point():
            bad = int((got != want).sum())
            return None if bad == 0 else f"{bad} of {want.numel()} elements differ"
        g, w = got.double(), want.double()
        if not torch.equal(torch.isnan(g), torch.isnan(w)):
            return f"NaN positions differ ({int(torch.isnan(g).sum())} vs {int(torch.isnan(w).sum())})"
        if not torch.equal(torch.isinf(g) & (g > 0), torch.isinf(w) & (w > 0)) or \
                not torch.equal(torch.isinf(g) & (g < 0), torch.isinf(w) & (w < 0)):
            return "inf positions differ"
        fin = torch.isfinite(w)
        err = (g - w).abs()[fin]
        lim = (atol + rtol * w.abs())[fin]
        bad = int((err > lim).sum())
        if bad:
            return f"{bad} of {int(fin.sum())} elements off, max abs error {float(err.max()):.3g}"
        return None

    def float_idx(self, xs):
        return [i for i, x in enumerate(xs) if isinstance(x, self.torch.Tensor) and x.is_floating_point()]

    # -- probes ------------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        out: dict[str, Any] = {"probes": []}
        try:
            self.sub = _import(self.dir / "submission.py", "submission")
            if not hasattr(self.sub, "ModelNew"):
                raise AttributeError("submission.py defines no ModelNew")
            mod = self.ref_module({})
            init, xs = self.inputs(mod, 0)
            self.call(self.model(self.sub.ModelNew, init, 0), xs)
            self.record(out, "builds", "nominal call", None)
        except Exception as exc:  # noqa: BLE001 - the finding itself
            self.record(out, "builds", "import, construct and call on nominal inputs",
                        f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}")
            out["static_integrity"] = static_integrity(self.dir / "submission.py")
            return out
        for seed in (0, 1, 2):
            self.guard(out, "correctness", f"nominal seed {seed}", lambda s=seed: self.compare({}, s))
        self.guard(out, "correctness", "output follows the inputs (seeds 0 and 1)", self.follows_inputs)
        for params in self.problem["shapes"]:
            self.guard(out, "generality", f"shape {params}", lambda p=params: self.compare(p, 3))
        self.guard(out, "generality", "strided (non-contiguous) inputs", lambda: self.compare({}, 4, noncontig=True))
        self.guard(out, "generality", "fp16 inputs and model", lambda: self.compare_fp16(5))
        self.guard(out, "numerics", "fp64 error budget, nominal inputs", lambda: self.numerics(["none", None, []], 6))
        for spec in self.problem["numerics"]:
            self.guard(out, "numerics", f"{spec[0]} {spec[1] if spec[1] is not None else ''} inputs {spec[2]}".strip(),
                       lambda s=spec: self.numerics(s, 7))
        self.integrity(out)
        return out

    def record(self, out, criterion: str, probe: str, failure: str | None) -> None:
        out["probes"].append({"criterion": criterion, "probe": probe, "ok": failure is None, "why": failure})

    def guard(self, out, criterion: str, probe: str, fn) -> None:
        try:
            failure = fn()
        except Exception as exc:  # noqa: BLE001 - a crash on a probe is that probe failing
            failure = f"raised {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
        self.record(out, criterion, probe, failure)

    def compare(self, params: dict[str, Any], seed: int, noncontig: bool = False) -> str | None:
        torch = self.torch
        mod = self.ref_module(params)
        init, xs = self.inputs(mod, seed)
        want = self.call(self.model(mod.Model, init, seed), self.clone(xs))
        if noncontig:
            xs = [strided(torch, x) if i in self.float_idx(xs) else x for i, x in enumerate(xs)]
        got = self.call(self.model(self.sub.ModelNew, init, seed), xs)
        return self.close(got, want, *self.tol)

    def follows_inputs(self) -> str | None:
        """A constant output that sits inside a loose tolerance is not a correct answer: when the
        reference's outputs for two seeds differ, the submission's must differ too."""
        torch = self.torch
        mod = self.ref_module({})
        outs = []
        for seed in (0, 1):
            init, xs = self.inputs(mod, seed)
            want = self.call(self.model(mod.Model, init, seed), self.clone(xs))
            got = self.call(self.model(self.sub.ModelNew, init, seed), xs)
            outs.append((want, got))
        (w0, g0), (w1, g1) = outs
        if isinstance(w0, torch.Tensor) and isinstance(g0, torch.Tensor) and not torch.equal(w0, w1) \
                and torch.equal(g0, g1):
            return "the same output for two different inputs while the reference's differ"
        return None

    def compare_fp16(self, seed: int) -> str | None:
        torch = self.torch
        mod = self.ref_module({})
        init, xs = self.inputs(mod, seed)
        fi = self.float_idx(xs)
        xs16 = [x.half() if i in fi else x for i, x in enumerate(xs)]
        ref = self.model(mod.Model, init, seed).half().float()  # parameters rounded to fp16, run in fp32
        want = self.call(ref, [x.float() if i in fi else x for i, x in enumerate(xs16)])
        got = self.call(self.model(self.sub.ModelNew, init, seed, torch.float16), xs16)
        if isinstance(want, torch.Tensor) and want.is_floating_point():
            if isinstance(got, torch.Tensor) and got.dtype != torch.float16:
                return f"fp16 inputs give a {got.dtype} output"
            got = got.float() if isinstance(got, torch.Tensor) else got
        return self.close(got, want, *FP16_TOL)

    def transformed(self, spec, seed: int):
        kind, value, which = spec
        mod = self.ref_module({})
        init, xs = self.inputs(mod, seed)
        for i in which:
            x = xs[i]
            if kind == "scale":
                xs[i] = x * value
            elif kind == "shift":
                xs[i] = x + value
            elif kind == "special":
                flat = x.clone().reshape(-1)
                n = flat.numel()
                flat[0] = float("nan")
                if n > 2:
                    flat[n // 2] = float("inf")
                    flat[n - 1] = float("-inf")
                xs[i] = flat.reshape(x.shape)
        return mod, init, xs

    def numerics(self, spec, seed: int) -> str | None:
        torch = self.torch
        mod, init, xs = self.transformed(spec, seed)
        want32 = self.call(self.model(mod.Model, init, seed), self.clone(xs))
        got = self.call(self.model(self.sub.ModelNew, init, seed), self.clone(xs))
        if spec[0] == "special" or not want32.is_floating_point():
            return self.close(got, want32, *self.tol)
        want64 = self.call(self.model(mod.Model, init, seed, torch.float64),
                           [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in xs])
        if not isinstance(got, torch.Tensor) or got.shape != want64.shape:
            return f"output shape {getattr(got, 'shape', None)} != {tuple(want64.shape)}"
        g, w64, w32 = got.double(), want64, want32.double()
        fin = torch.isfinite(w64) & torch.isfinite(w32)
        if not bool(torch.isfinite(g)[fin].all()):
            return (f"{int((~torch.isfinite(g))[fin].sum())} non-finite outputs where the reference is finite "
                    f"({spec[0]} {spec[1]})")
        scale = float(w64[fin].abs().max()) if bool(fin.any()) else 1.0
        scale = scale or 1.0
        e_sub = float((g - w64)[fin].abs().max()) / scale if bool(fin.any()) else 0.0
        e_ref = float((w32 - w64)[fin].abs().max()) / scale if bool(fin.any()) else 0.0
        limit = max(BUDGET_FACTOR * e_ref, BUDGET_FLOOR)
        if e_sub > limit:
            return f"normwise error vs fp64 {e_sub:.3g} > {limit:.3g} (the fp32 reference's own: {e_ref:.3g})"
        return None

    def integrity(self, out) -> None:
        torch = self.torch
        mod = self.ref_module({})
        init, xs = self.inputs(mod, 8)
        pristine = self.clone(xs)
        ref_ops = traced_ops(torch, lambda: self.call(self.model(mod.Model, init, 8), self.clone(xs)))
        model = self.model(self.sub.ModelNew, init, 8)
        self.launches = 0
        sub_ops = traced_ops(torch, lambda: self.call(model, xs))
        self.record(out, "integrity", "Triton launches during forward",
                    None if self.launches > 0 else "no Triton kernel launched")
        changed = [i for i, (a, b) in enumerate(zip(xs, pristine, strict=True))
                   if isinstance(a, torch.Tensor) and not torch.equal(a.nan_to_num(), b.nan_to_num())]
        self.record(out, "integrity", "inputs unchanged after the call",
                    None if not changed else f"input(s) {changed} modified in place")
        core = (ref_ops - PLUMBING) & sub_ops
        self.record(out, "integrity", "no compute operator of the reference called",
                    None if not core else f"forward calls aten {sorted(core)} like the reference")

        def follows() -> str | None:
            # the same tensors with new contents must give what fresh tensors with those contents give
            live = self.clone(pristine)
            first = self.call(model, live)
            first = first.clone() if isinstance(first, torch.Tensor) else first
            torch.manual_seed(99)
            for i in self.problem.get("mutate", self.float_idx(live)[:1]):
                live[i].copy_(torch.randn_like(live[i]) * 2 + 0.5)
            fresh = self.clone(live)
            again = self.call(model, live)
            want = self.call(self.model(self.sub.ModelNew, init, 8), fresh)
            why = self.close(again, want, *self.tol)
            if why:
                return f"after new contents were written into the same input tensors: {why}"
            # and an output that does not move when the reference's does ignores its inputs
            ref = self.model(mod.Model, init, 8)
            ref_moved = self.close(self.call(ref, self.clone(live)), self.call(ref, self.clone(pristine)), *self.tol)
            if ref_moved and isinstance(again, torch.Tensor) and torch.equal(again.nan_to_num(), first.nan_to_num()):
                return "output unchanged by new input contents that change the reference's output"
            return None

        self.guard(out, "integrity", "outputs follow new contents written into the same input tensors", follows)


def strided(torch, x):
    """Same values, stride 2 in the last dimension (a strided slice of a wider zero tensor)."""
    if x.dim() == 0:
        return x
    base = torch.zeros(*x.shape[:-1], 2 * x.shape[-1], dtype=x.dtype)
    base[..., ::2] = x
    return base[..., ::2]


def traced_ops(torch, fn) -> set[str]:
    from torch.utils._python_dispatch import TorchDispatchMode

    seen: set[str] = set()

    class Trace(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.add(func.overloadpacket.__name__)
            return func(*args, **(kwargs or {}))

    with Trace():
        fn()
    return seen


LIBRARY_CALLS = {"softmax", "log_softmax", "layer_norm", "rms_norm", "matmul", "mm", "bmm", "addmm", "linear",
                 "relu", "gelu", "silu", "hardtanh", "leaky_relu", "sum", "mean", "max", "argmax", "max_pool1d",
                 "max_pool2d", "avg_pool1d", "cross_entropy", "mse_loss", "smooth_l1_loss", "add", "clamp",
                 "exp", "log", "logsumexp", "einsum"}


def static_integrity(path: Path) -> str | None:
    """For a submission that does not build: a library call for a compute op outside @triton.jit."""
    try:
        tree = ast.parse(path.read_text())
    except SyntaxError:
        return None
    jit = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
           and any("jit" in ast.unparse(d) for d in n.decorator_list)}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name not in jit:
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
                    base = ast.unparse(call.func.value)
                    if base in ("torch", "F", "torch.nn.functional") and call.func.attr in LIBRARY_CALLS:
                        return f"{ast.unparse(call.func)} in {node.name}"
                if isinstance(call, ast.BinOp) and isinstance(call.op, ast.MatMult):
                    return f"'@' in {node.name}"
    return None


def child_main(case_dir: str, problem: str) -> None:
    try:
        result = _Child(Path(case_dir), PROBLEMS[problem]).run()
    except Exception:  # noqa: BLE001 - reported to the parent, never a silent pass
        result = {"error": traceback.format_exc()[-3000:]}
    sys.stdout.write("\n@@RESULT@@" + json.dumps(result) + "\n")


# --------------------------------------------------------------------------------------------------
# parent side
# --------------------------------------------------------------------------------------------------

def verdicts(result: dict[str, Any]) -> dict[str, str]:
    got = {c: "pass" for c in CRITERIA}
    for p in result["probes"]:
        if not p["ok"]:
            got[p["criterion"]] = "fail"
    if got["builds"] == "fail":
        got.update(correctness="fail", generality="fail", numerics="fail",
                   integrity="fail" if result.get("static_integrity") else "pass")
    return got


def verify_case(name: str, timeout: float, root: Path = HERE) -> dict[str, Any]:
    case = root / name
    grades = json.loads((case / "grades.json").read_text())
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, __file__, "--child", str(case), CASES[name]], check=False,
                              capture_output=True, text=True, timeout=timeout, env=env, cwd=case)
        tail = proc.stdout.rsplit("@@RESULT@@", 1)
        result = json.loads(tail[1]) if len(tail) == 2 else {"error": f"exit {proc.returncode}: {proc.stderr[-2000:]}"}
    except subprocess.TimeoutExpired:
        result = {"error": f"timed out after {timeout:.0f}s"}
    row: dict[str, Any] = {"case": name, "seconds": round(time.monotonic() - t0, 1), "graded": grades["criteria"],
                           "overall": grades["overall"]}
    if "error" in result:
        row.update(ok=False, why=f"verifier error: {result['error']}")
        return row
    got = verdicts(result)
    row["measured"] = got
    row["failed_probes"] = [f"{p['criterion']}: {p['probe']}: {p['why']}" for p in result["probes"] if not p["ok"]]
    wrong = [c for c in CRITERIA if grades["criteria"].get(c) != got[c]]
    overall = "accept" if all(v == "pass" for v in got.values()) else "reject"
    if overall != grades["overall"]:
        wrong.append("overall")
    row["ok"] = not wrong
    row["why"] = "" if not wrong else "grade differs from measurement on " + ", ".join(wrong)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="*", help="case names (default: every case)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--json", type=Path, help="write the per-case results here")
    ap.add_argument("--root", type=Path, default=HERE, help="directory holding the cases [this set]")
    ap.add_argument("--child", nargs=2, metavar=("CASE_DIR", "PROBLEM"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child_main(*args.child)
        return 0
    dirs = sorted(p.name for p in args.root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    unlisted, stale = sorted(set(dirs) - set(CASES)), sorted(set(CASES) - set(dirs))
    if (unlisted or stale) and not args.cases:
        print(f"case table out of date: unlisted {unlisted}, missing {stale}")
        return 2
    names = args.cases or dirs
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        rows = list(pool.map(lambda n: verify_case(n, args.timeout, args.root), names))
    wall = time.monotonic() - t0
    for r in rows:
        mark = "ok  " if r["ok"] else "FAIL"
        shown = ",".join(f"{c[:4]}={r['measured'][c][0]}" for c in CRITERIA) if "measured" in r else ""
        print(f"{mark} {r['case']:<36} {r['seconds']:>5.1f}s {shown} {r['why']}")
        if not r["ok"] or os.environ.get("VERIFY_VERBOSE", "0") != "0":
            for f in r.get("failed_probes", []):
                print(f"       {f}")
    good = sum(r["ok"] for r in rows)
    print(f"{good}/{len(rows)} cases verified in {wall:.0f}s wall ({args.workers} workers)")
    if args.json:
        args.json.write_text(json.dumps({"wall_s": round(wall, 1), "workers": args.workers, "cases": rows}, indent=2))
    return 0 if good == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
