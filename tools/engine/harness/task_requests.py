"""The reference child's checks of the task itself (tools/engine/task_audit.py asks, the parent judges).

``task_probe`` runs the reference on one case's saved inputs several times: twice as given
(deterministic? inputs left as they were?), once per floating input with that input perturbed, and,
where the reference computes with a module (a KernelBench ``Model``), once per parameter perturbed.
It answers numbers only (differences against the first run, input and output statistics); the
reference is untrusted code like the submission, which is why this runs here, in the sandbox.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

import tools.engine.harness.tensors as tensors
from tools.engine.harness.case import Case
from tools.engine.harness.op_table import ChildState, op, prepared, restored, sync

# Rationale: a probe per input and per parameter; past these counts a task's remaining leaves are
# named as not probed rather than making the audit of a large model take minutes.
MAX_INPUTS = 16
MAX_PARAMS = 32
# Rationale: torch.unique over a few million elements is fast; a sample this size tells "few distinct
# values" (a generator of integers cast to float, a constant fill) from a continuous one.
UNIQUE_SAMPLE = 1 << 20


Leaves = list[tuple[str, torch.Tensor]]


def _float_leaves(value: Any) -> Leaves:
    return [(p, t) for p, t in tensors.flatten(tensors.to_plain(value))
            if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex())]


def _diff(a: Leaves, b: Leaves, atol: float, rtol: float) -> dict[str, Any]:
    """How far ``b`` is from ``a``: bitwise, within the task's tolerance, largest difference."""
    if [t.shape for _, t in a] != [t.shape for _, t in b]:
        return {"same_bits": False, "within_tol": False, "max_abs_diff": None, "shape_changed": True}
    same = all(torch.equal(x.nan_to_num(), y.nan_to_num()) for (_, x), (_, y) in zip(a, b))
    within = all(torch.allclose(y.double(), x.double(), atol=atol, rtol=rtol, equal_nan=True)
                 for (_, x), (_, y) in zip(a, b))
    diffs = [float((y.double() - x.double()).abs().nan_to_num().max()) for (_, x), (_, y) in zip(a, b) if x.numel()]
    return {"same_bits": same, "within_tol": within, "max_abs_diff": max(diffs, default=0.0)}


def _stats(path: str, t: torch.Tensor) -> dict[str, Any]:
    flat = t.detach().reshape(-1)
    real = flat.real if flat.is_complex() else flat
    finite = real[torch.isfinite(real)].double()
    sample = finite[:UNIQUE_SAMPLE]
    some = bool(finite.numel())
    return {"path": path, "shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch."),
            "numel": int(flat.numel()),
            "min": float(finite.min()) if some else None, "max": float(finite.max()) if some else None,
            "std": float(finite.std()) if finite.numel() > 1 else 0.0,
            "abs_max": float(finite.abs().max()) if finite.numel() else None,
            "nonfinite": int(real.numel() - finite.numel()), "distinct": int(torch.unique(sample).numel()),
            "sampled": int(sample.numel())}


def _scale(t: torch.Tensor) -> float:
    """A perturbation as large as the values themselves: a real dependency cannot hide in a tolerance."""
    f = t.detach().double()
    f = f[torch.isfinite(f)] if f.numel() else f
    if f.numel() > 1 and float(f.std()) > 0:
        return float(f.std())
    return max(float(f.abs().max()) if f.numel() else 0.0, 1.0)


def _perturbed(value: Any, target: int, gen: torch.Generator) -> Any:
    """``value`` with its ``target``-th floating leaf plus noise of the leaf's own spread."""
    counter = [0]

    def walk(v: Any) -> Any:
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            i = counter[0]
            counter[0] += 1
            if i != target:
                return v
            noise = torch.randn(v.shape, generator=gen, dtype=torch.float64)
            return (v.double() + noise * _scale(v)).to(v.dtype)
        if isinstance(v, (list, tuple)):
            out = [walk(x) for x in v]
            return out if isinstance(v, list) else tuple(out)
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    return walk(value)


def _guarded(fn: Callable[[], Any]) -> tuple[Any, str | None]:
    try:
        return fn(), None
    except Exception as exc:  # noqa: BLE001 - a reference failing on perturbed inputs is a number, not a crash
        return None, f"{type(exc).__name__}: {exc}"[:300]


@op("task_probe")
def _task_probe(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    ref = state.reference
    if ref is None:
        raise RuntimeError("reference not loaded")
    case = Case.model_validate(payload["case"])
    saved = tensors.load(payload["inputs_path"])
    atol, rtol = float(payload["atol"]), float(payload["rtol"])
    gen = torch.Generator().manual_seed(int(payload.get("seed", 0)))
    kinds = saved.get("kinds", {})

    def data_of(inputs: list[Any]) -> Any:
        return restored(tensors.clone(saved["init"]), prepared(tensors.clone(inputs), case, state.device), kinds)

    def call(inputs: list[Any]) -> tuple[Any, Leaves]:
        data = data_of(inputs)
        # bind: the reference on these very inputs (GPU MODE's run clones them), so writes show
        out = ref.bind(case, data)(data.inputs)
        sync(state.device)
        return data, _float_leaves(out)

    data, first = call(saved["inputs"])
    pristine = _float_leaves(prepared(tensors.clone(saved["inputs"]), case, "cpu"))
    after = _float_leaves(data.inputs)
    mutated = [p for (p, x), (_, y) in zip(pristine, after)
               if x.shape != y.shape or not torch.equal(x.nan_to_num(), y.nan_to_num())]
    _, second = call(saved["inputs"])
    result: dict[str, Any] = {
        "inputs": [_stats(p, t) for p, t in _float_leaves(saved["inputs"])],
        "outputs": [_stats(p, t) for p, t in first],
        "mutated_inputs": mutated,
        "second_run": _diff(first, second, atol, rtol),
        "input_probes": [], "param_probes": [], "not_probed": [],
    }
    leaves = _float_leaves(saved["inputs"])
    for i, (path, _) in enumerate(leaves[:MAX_INPUTS]):
        res, err = _guarded(lambda i=i: call(_perturbed(saved["inputs"], i, gen))[1])
        numbers = _diff(first, res, atol, rtol) if res is not None else {"error": err}
        result["input_probes"].append({"path": path, **numbers})
    result["not_probed"] += [p for p, _ in leaves[MAX_INPUTS:]]
    result["param_probes"], skipped = _param_probes(ref, case, data_of(saved["inputs"]), atol, rtol, gen)
    result["not_probed"] += skipped
    return result


def _param_probes(ref: Any, case: Case, data: Any, atol: float, rtol: float,
                  gen: torch.Generator) -> tuple[list[dict[str, Any]], list[str]]:
    """Each floating parameter and buffer of the reference's module: all zero? perturbed, does the
    output move beyond the task's tolerance?"""
    model, err = _guarded(lambda: ref.model(case, data))
    if not isinstance(model, torch.nn.Module):
        return ([{"path": "(model)", "error": err}] if err else []), []

    def run() -> Leaves:
        with torch.no_grad():
            return _float_leaves(model(*data.inputs))

    base, err = _guarded(run)
    if base is None:
        return [{"path": "(model)", "error": err}], []
    named = [(n, t) for n, t in [*model.named_parameters(), *model.named_buffers()] if t.is_floating_point()]
    probes = []
    for name, t in named[:MAX_PARAMS]:
        orig = t.detach().clone()
        entry: dict[str, Any] = {"path": name, "shape": list(t.shape),
                                 "all_zero": bool(orig.numel()) and not bool(orig.any()),
                                 "constant": orig.numel() > 1 and bool((orig == orig.reshape(-1)[0]).all())}
        with torch.no_grad():
            t.add_((torch.randn(t.shape, generator=gen, dtype=torch.float64) * _scale(orig)).to(t.dtype).to(t.device))
        res, err = _guarded(run)
        with torch.no_grad():
            t.copy_(orig)
        entry.update(_diff(base, res, atol, rtol) if res is not None else {"error": err})
        probes.append(entry)
    return probes, [n for n, _ in named[MAX_PARAMS:]]
