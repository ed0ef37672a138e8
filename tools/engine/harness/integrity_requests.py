"""Child requests that check whether a submission does the work (the integrity tools' side).

``integrity_reference``  (reference child) the reference bound once on input contents A and B: both
                         outputs saved, the call on A traced with ``torch_ops``.
``integrity_probe``      (submission child) the submission bound once (a KernelBench model is built
                         once, as a benchmark loop does), then called three times:
                         1. ``nominal``: on A, traced (operators, launches, harness guard);
                         2. ``in_place``: the same input objects with B's contents copied in;
                         3. ``fresh``: new tensors holding A's contents again.
                         Each call's outputs are saved at once; the parent compares them with the
                         reference's (call 1 and 3 with A's, call 2 with B's) and with each other.
``integrity_withheld``   (submission child, after ``integrity_probe``) the submission bound once more and
                         called on a content it has not seen with the reference's core operators
                         withheld at the dispatcher (tools/engine/harness/withheld_ops.py) and its copies
                         of tensors to the host answered with poison (withheld_exports.py); the output
                         saved for the parent. The child serves nothing after it.
``integrity_many_calls`` (submission child) the submission bound once and called many times on a
                         schedule of contents and ways (same tensors, contents copied in, new
                         tensors); every output saved for the parent (tools/integrity/many_calls.py).

Importing this module (``tools.engine.harness.ops`` does, at child start) also arms the harness guard's
baseline and audit hook before any user code runs. Its requests go in the table ops.py answers from
(tools/engine/harness/op_table.py); it does not import ops.py.
"""

from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Any

import torch

import tools.engine.harness.arrays as arrays
import tools.engine.harness.input_history as input_history
import tools.engine.harness.instruments as instruments
import tools.engine.harness.tensors as tensors
from tools.engine.harness.case import Case
from tools.engine.harness.instruments.harness_guard import guard
from tools.engine.harness.instruments.jax_ops import JaxOpRecorder, merge_into
from tools.engine.harness.instruments.torch_ops import OpRecorder
from tools.engine.harness.op_table import ChildState, op, prepared, restored, sync
from tools.engine.harness.programs import CaseData
from tools.engine.harness.withheld_exports import ExportsWithheld, allowance
from tools.engine.harness.withheld_ops import withhold


def _case_data(saved: dict[str, Any], case: Case, device: str) -> CaseData:
    """The case's inputs as ``run_submission`` builds them (transforms applied; inputs made as JAX or
    NumPy arrays given back as such where the harness records their kinds)."""
    return restored(saved["init"], prepared(saved["inputs"], case, device), saved.get("kinds", {}))


def _root(spec: dict[str, Any], key: str) -> str | None:
    path = spec.get(key)
    return str(Path(path).resolve().parent) if path else None


def _error(exc: BaseException) -> dict[str, Any]:
    return {"type": type(exc).__name__, "message": str(exc)[:1000],
            "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-3000:]}


def _save(out: Any, path: Path) -> None:
    tensors.save(out if isinstance(out, (list, tuple)) else [out], str(path))


def _copy_into(dst: list[Any], src: list[Any]) -> str | None:
    """Write ``src``'s tensor contents into ``dst``'s tensors in place; why not, if impossible."""
    d_leaves, s_leaves = tensors.flatten(dst), tensors.flatten(src)
    if [p for p, _ in d_leaves] != [p for p, _ in s_leaves]:
        return "the two input contents have different structures"
    for (path, d), (_, s) in zip(d_leaves, s_leaves, strict=True):
        if isinstance(d, torch.Tensor) and isinstance(s, torch.Tensor):
            if d.shape != s.shape or d.dtype != s.dtype:
                return f"input {path} differs in shape or dtype between the two contents"
        elif hasattr(d, "shape") or hasattr(s, "shape"):
            return f"input {path} is a {type(d).__name__}, which cannot be overwritten in place"
        elif d != s:
            return f"input {path} is a non-tensor value that differs between the two contents"
    with torch.no_grad():
        for (_, d), (_, s) in zip(d_leaves, s_leaves, strict=True):
            if isinstance(d, torch.Tensor):
                d.copy_(s)
    return None


def _changed(before: list[Any], after: list[Any]) -> list[str]:
    out = []
    for (path, b), (_, a) in zip(tensors.flatten(before), tensors.flatten(after), strict=True):
        if isinstance(b, torch.Tensor) and isinstance(a, torch.Tensor) and b.shape == a.shape:
            same = (a == b) | (torch.isnan(a) & torch.isnan(b)) if a.is_floating_point() else (a == b)
            if not bool(same.all()):
                out.append(path)
    return out


def _returned_inputs(out: Any, inputs: list[Any]) -> list[str]:
    """The input paths whose storage an output shares: buffers the call wrote its answer into and returned."""
    def storage(t: Any) -> int | None:
        try:
            return int(t.untyped_storage().data_ptr()) if isinstance(t, torch.Tensor) and t.numel() else None
        except (RuntimeError, NotImplementedError):
            return None

    outs = {storage(leaf) for _, leaf in tensors.flatten(out if isinstance(out, (list, tuple)) else [out])} - {None}
    return [path for path, leaf in tensors.flatten(inputs) if storage(leaf) in outs]


@op("integrity_reference")
def _integrity_reference(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    if state.reference is None:
        raise RuntimeError("reference not loaded")
    case = Case.model_validate(payload["case"])
    a, b = tensors.load(payload["inputs_a"]), tensors.load(payload["inputs_b"])
    data_a = _case_data(a, case, state.device)
    before = tensors.clone(data_a.inputs)
    fn = state.reference.bind(case, data_a)
    root = _root(state.reference.spec, "reference_path")
    recorder, jax_recorder = OpRecorder(root, follow_launches=False), JaxOpRecorder(root)
    t0 = time.perf_counter()
    with jax_recorder, recorder:
        out_a = fn(data_a.inputs)
        sync(state.device)
    seconds = time.perf_counter() - t0
    mutated = _changed(before, data_a.inputs)
    _save(out_a, Path(payload["out_a"]))
    out_b = fn(_case_data(b, case, state.device).inputs)
    sync(state.device)
    _save(out_b, Path(payload["out_b"]))
    return {"trace": merge_into(recorder.data, jax_recorder.data), "outputs": tensors.describe(out_a),
            "mutated_inputs": mutated,
            "seconds": seconds}


def _one_call(fn: Any, inputs: list[Any], root: str | None, device: str, out_path: Path,
              extra: list[Any] | None = None) -> tuple[dict[str, Any], OpRecorder]:
    recorder, jax_recorder = OpRecorder(root), JaxOpRecorder(root, clear_caches=False)
    record: dict[str, Any] = {"error": None}
    t0 = time.perf_counter()
    with jax_recorder, recorder:
        try:
            out = fn(inputs)
            sync(device)
        except Exception as exc:  # noqa: BLE001 - a failing repeat call is a finding, not a crash
            record["error"] = _error(exc)
            out = None
    record["seconds"] = time.perf_counter() - t0
    record["launches"] = recorder.data["launches"]
    record["torch_cost"] = sum(e["cost"] for e in recorder.data["ops"] if e["kind"] == "compute")
    recorder.data = merge_into(recorder.data, jax_recorder.data)
    if record["error"] is None:
        record["derived_from_launch"] = recorder.derived_from_launch(out)
        record["outputs"] = tensors.describe(out)
        _save(out, out_path)
        record["outputs_file"] = out_path.name
    return record, recorder


@op("integrity_probe")
def _integrity_probe(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    if state.submission is None:
        raise RuntimeError("submission not loaded")
    case = Case.model_validate(payload["case"])
    out_dir = Path(payload["out_dir"])
    root = _root(state.submission.spec, "submission_path")
    data_a = _case_data(tensors.load(payload["inputs_a"]), case, state.device)
    input_history.keep(data_a.inputs)  # its address is never an earlier input's nor a later one's
    fn = state.submission.bind(case, data_a)
    calls: list[dict[str, Any]] = []

    launches_cm = instruments.get("triton_launches")(payload)
    with guard(root) as guarded, launches_cm as launched:
        recorder, jax_recorder = OpRecorder(root), JaxOpRecorder(root)
        t0 = time.perf_counter()
        with jax_recorder, recorder:
            out = fn(data_a.inputs)
            sync(state.device)
        first = {"label": "nominal", "error": None, "seconds": time.perf_counter() - t0,
                 "launches": recorder.data["launches"], "derived_from_launch": recorder.derived_from_launch(out),
                 "outputs": tensors.describe(out), "outputs_file": "call-1.pt",
                 "returned_inputs": _returned_inputs(out, data_a.inputs)}
        _save(out, out_dir / "call-1.pt")
    first["torch_cost"] = sum(e["cost"] for e in recorder.data["ops"] if e["kind"] == "compute")
    recorder.data = merge_into(recorder.data, jax_recorder.data)
    tensors.save(data_a.inputs, str(out_dir / "inputs-after-1.pt"))
    calls.append(first)
    traces = [recorder.data]

    b = tensors.load(payload["inputs_b"])
    inputs_b = _case_data(b, case, state.device).inputs
    input_history.keep(inputs_b)
    why_not = _copy_into(data_a.inputs, inputs_b)
    immutable = any(arrays.kind_of(leaf) == "jax" for _, leaf in tensors.flatten(data_a.inputs))
    if why_not is not None and immutable:
        # Rationale: JAX arrays cannot be overwritten; new arrays with B's values (same shapes, same
        # bound instance) still catch an output cached on shape or call count.
        record, rec = _one_call(fn, inputs_b, root, state.device, out_dir / "call-2.pt")
        calls.append({"label": "in_place", "new_arrays": True, **record})
        traces.append(rec.data)
    elif why_not is None:
        record, rec = _one_call(fn, data_a.inputs, root, state.device, out_dir / "call-2.pt")
        calls.append({"label": "in_place", **record})
        traces.append(rec.data)
    else:
        calls.append({"label": "in_place", "skipped": why_not})
    fresh = _case_data(tensors.load(payload["inputs_a"]), case, state.device).inputs
    input_history.keep(fresh)
    record, rec = _one_call(fn, fresh, root, state.device, out_dir / "call-3.pt")
    calls.append({"label": "fresh", **record})
    traces.append(rec.data)
    return {"calls": calls, "trace": traces[0], "later_traces": traces[1:], "launches": launched,
            "guard": guarded}


@op("integrity_withheld")
def _integrity_withheld(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    if state.submission is None:
        raise RuntimeError("submission not loaded")
    case = Case.model_validate(payload["case"])
    data = _case_data(tensors.load(payload["inputs"]), case, state.device)
    input_history.keep(data.inputs)
    fn = state.submission.bind(case, data)
    withheld = withhold([str(n) for n in payload["ops"]], [str(f) for f in payload.get("families", [])])
    largest = max((leaf.numel() for _, leaf in tensors.flatten(data.inputs) if isinstance(leaf, torch.Tensor)),
                  default=0)
    root = _root(state.submission.spec, "submission_path")
    launches = OpRecorder(root)  # its launch rule tells the launcher's own host copies from the submission's
    exports = ExportsWithheld(allowance(largest), root, launches)
    record: dict[str, Any] = {"withheld": withheld, "error": None}
    try:
        with launches, exports:
            out = fn(data.inputs)
            sync(state.device)
    except Exception as exc:  # noqa: BLE001 - forward failing without the operators is the finding
        record["error"] = _error(exc)
        record["exports_poisoned"] = exports.poisoned
        return record
    record["exports_poisoned"] = exports.poisoned
    _save(out, Path(payload["out_dir"]) / "withheld.pt")
    record["outputs"] = tensors.describe(out)
    return record


@op("integrity_many_calls")
def _integrity_many_calls(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    """The submission bound once and called ``len(schedule)`` times in this child, each call's output
    copied at once; all outputs saved to one file for the parent to compare with the reference.

    ``schedule`` entries are ``[content, how]``: ``content`` indexes ``inputs`` (saved input files
    of one shape), ``how`` is ``reuse`` (the same input objects again), ``copy`` (that content
    written into the same objects: same addresses, new values) or ``fresh`` (new tensors). A call
    that raises ends the run; its number and error are returned."""
    if state.submission is None:
        raise RuntimeError("submission not loaded")
    case = Case.model_validate(payload["case"])
    saved = [tensors.load(p) for p in payload["inputs"]]
    schedule = [(int(c), str(h)) for c, h in payload["schedule"]]
    # Rationale: the prepared inputs may be the loaded tensors themselves; each use gets a copy, so
    # writing one content into the bound tensors never changes the saved contents.
    data = _case_data(tensors.clone(saved[schedule[0][0]]), case, state.device)
    fn = state.submission.bind(case, data)
    current, outputs, notes = data.inputs, [], []
    error = None
    for k, (content, how) in enumerate(schedule, start=1):
        if how == "copy":
            why_not = _copy_into(current, _case_data(tensors.clone(saved[content]), case, state.device).inputs)
            if why_not is not None:
                notes.append(f"call {k}: {why_not}; new tensors instead")
                how = "fresh"
        if how == "fresh":
            current = _case_data(tensors.clone(saved[content]), case, state.device).inputs
        try:
            out = fn(current)
            sync(state.device)
        except Exception as exc:  # noqa: BLE001 - a call that fails after earlier ones succeeded is a finding
            error = {"call": k, **_error(exc)}
            break
        outputs.append(tensors.to_plain(out if isinstance(out, (list, tuple)) else [out]))
    torch.save(outputs, str(Path(payload["out_dir"]) / "outputs.pt"))
    return {"calls": len(outputs), "error": error, "notes": notes[:5]}
