"""The requests a sandbox child answers.

``load``            build the reference or submission program (imports user code)
``reference_case``  make a case's inputs, save them, run the reference, save its outputs
``run_submission``  load a case's inputs, run the submission (under instruments), save outputs
``check``           run the task's own checker on a candidate output (reference role only)
``reference_work``  FLOPs and minimum bytes of one reference call (tools/engine/counting.py)

Instruments (``tools.engine.harness.instruments``) observe a submission call and return JSON-able data.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import time
from collections.abc import Iterator
from typing import Any

import tools.engine.harness.arrays as arrays
from tools.engine.harness.defined_empty import defined_empty
import tools.engine.harness.instruments as instruments
import tools.engine.harness.programs as programs
import tools.engine.harness.input_history as input_history
import tools.engine.harness.tensors as tensors
from tools.engine.counting import count_work
from tools.engine.harness.case import Case
# the request table and the helpers every handler shares (integrity_requests registers its requests there too)
from tools.engine.harness.op_table import OPS, ChildState, op, prepared, restored, sync
from tools.engine.harness.programs import CaseData

# Every registered format's child-side programs register their pair on import (SubmissionFormat.programs),
# here, before the child withdraws the reviewer's modules and user code loads.
from tools.engine.formats import formats  # noqa: E402

for _fmt in formats().values():
    importlib.import_module(_fmt.programs)


def dispatch(name: str, payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    if name not in OPS:
        raise KeyError(f"unknown request {name!r}")
    return OPS[name](payload, state)


@op("ping")
def _ping(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    return {"pong": True}


@op("load")
def _load(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    fmt = payload["format"]
    t0 = time.perf_counter()
    if payload["role"] == "reference":
        state.reference = programs.REFERENCES[fmt](payload["spec"], state.device)
    else:
        state.submission = programs.SUBMISSIONS[fmt](payload["spec"], state.device)
    return {"loaded": payload["role"], "seconds": time.perf_counter() - t0}


@op("reference_case")
def _reference_case(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    if state.reference is None:
        raise RuntimeError("reference not loaded")
    case = Case.model_validate(payload["case"])
    t0 = time.perf_counter()
    with defined_empty():  # a case's inputs are a function of its seed (output buffers from torch.empty)
        data = state.reference.make_case(case)
    # JAX/numpy inputs travel as tensors; each side gets them back as the kind they were made as.
    (init, inputs), kinds = tensors.normalise([data.init, data.inputs])
    tensors.save({"init": init, "inputs": inputs, "kinds": kinds}, payload["inputs_path"])
    t1 = time.perf_counter()
    run_data = restored(init, prepared(inputs, case, state.device), kinds)
    with arrays.wide_floats(case.reference_dtype):
        out = state.reference.run(case, run_data)
        sync(state.device)
    t2 = time.perf_counter()
    tensors.save(out if isinstance(out, (list, tuple)) else [out], payload["outputs_path"])
    return {
        "inputs": tensors.describe(run_data.inputs),
        "input_kinds": kinds,
        "init": [repr(x)[:80] for x in data.init],
        # the float constructor arguments, by position, that the generality init-args axis may vary
        "init_floats": {str(i): float(x) for i, x in enumerate(data.init)
                        if isinstance(x, float) and math.isfinite(x)},
        "outputs": tensors.describe(out),
        "make_seconds": t1 - t0,
        "run_seconds": t2 - t1,
    }


@contextlib.contextmanager
def _instruments(names: list[str], payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    collected: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        for name in names:
            collected[name] = stack.enter_context(instruments.get(name)(payload))
        yield collected


@op("run_submission")
def _run_submission(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    if state.submission is None:
        raise RuntimeError("submission not loaded")
    case = Case.model_validate(payload["case"])
    saved = tensors.load(payload["inputs_path"])
    data = restored(saved["init"], prepared(saved["inputs"], case, state.device), saved.get("kinds", {}))
    calls = int(payload.get("calls", 1))
    # no later input of this child lands at these inputs' addresses (harness/input_history.py)
    input_history.keep(data.inputs)
    t0 = time.perf_counter()
    # the instruments see which file is the submission's (host_coverage measures only its files)
    seen = {**payload, "submission_spec": state.submission.spec}
    with _instruments(payload.get("instruments", []), seen) as observed:
        try:
            for _ in range(calls):
                out = state.submission.run(case, data)
            sync(state.device)
        except BaseException as exc:
            # what the instruments saw before the failure travels with the error (child._error)
            with contextlib.suppress(Exception):
                exc.kreview_instruments = observed
            raise
    t1 = time.perf_counter()
    described = tensors.describe(out)
    tensors.save(out if isinstance(out, (list, tuple)) else [out], payload["outputs_path"])
    if payload.get("inputs_after_path"):
        tensors.save(data.inputs, payload["inputs_after_path"])
    return {"outputs": described, "run_seconds": t1 - t0, "instruments": observed}


@op("check")
def _check(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    if state.reference is None:
        raise RuntimeError("reference not loaded")
    case = Case.model_validate(payload["case"])
    saved = tensors.load(payload["inputs_path"])
    data = CaseData(init=saved["init"], inputs=prepared(saved["inputs"], case, state.device))
    candidate = tensors.load(payload["candidate_path"])
    if isinstance(candidate, list) and len(candidate) == 1:
        candidate = candidate[0]
    verdict = state.reference.check(data, candidate)
    return {"checker": verdict}


@op("reference_work")
def _reference_work(payload: dict[str, Any], state: ChildState) -> dict[str, Any]:
    if state.reference is None:
        raise RuntimeError("reference not loaded")
    case = Case.model_validate(payload["case"])
    saved = tensors.load(payload["inputs_path"])
    data = CaseData(init=saved["init"], inputs=prepared(saved["inputs"], case, state.device))
    with count_work(data.inputs) as work:
        out = state.reference.run(case, data)
    sync(state.device)
    return work.finish(out)

# Integrity probes register their requests in the same table (op_table.py); importing them at child
# start also arms the harness guard (baseline of watched functions, audit hook) before any user code
# is loaded. Last, so that ``dispatch`` above exists when the guard takes its baseline.
importlib.import_module("tools.engine.harness.integrity_requests")
# the task audit's probes of the reference (tools/engine/task_audit.py), registered the same way
importlib.import_module("tools.engine.harness.task_requests")
# every other instrument too, before any user code (tools/engine/sandbox/own_modules.py)
instruments.load_all()
