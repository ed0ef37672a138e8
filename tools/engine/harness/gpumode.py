"""GPU MODE reference-kernels: ``generate_input(**kwargs)``, ``ref_kernel(data)`` and
``check_implementation(data, output)`` in the reference; ``custom_kernel(data)`` in the submission.

``data`` is whatever ``generate_input`` returns (usually a tuple of tensors, sometimes with output
buffers); it is passed as the single element of the case's input list.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import tools.engine.harness.gpumode_shim as gpumode_shim
import tools.engine.harness.tensors as tensors
from tools.engine.harness.case import Case
from tools.engine.harness.kernelbench import dtype_of
from tools.engine.harness.loader import import_file
from tools.engine.harness.programs import CaseData, ReferenceProgram, SubmissionProgram, register


def _prepare(folder: Path) -> None:
    # a task's own utils.py / task.py (files of the task, as GPU MODE's reference-kernels ship them) are the
    # ones it imports; the stand-ins only fill a gap. A utils/ or task/ package is not a task file: the
    # reference child must not import a package a submission could have put beside it.
    gpumode_shim.install_modules((folder / "utils.py").exists(), (folder / "task.py").exists())


class GpuModeReference(ReferenceProgram):
    format = "gpumode"

    def __init__(self, spec: dict[str, Any], device: str) -> None:
        super().__init__(spec, device)
        path = Path(spec["reference_path"])
        _prepare(path.parent)
        self.module = import_file(path, "reference")
        for name in ("generate_input", "ref_kernel"):
            if not hasattr(self.module, name):
                raise AttributeError(f"reference {path.name} defines no {name}")

    def make_case(self, case: Case) -> CaseData:
        torch.manual_seed(case.seed)
        data = self.module.generate_input(**case.params)
        return CaseData(inputs=[data])

    def run(self, case: Case, data: CaseData) -> Any:
        torch.manual_seed(case.weights_seed)
        value = tensors.clone(data.inputs[0])
        wide = dtype_of(case.reference_dtype)
        if wide is not None:
            value = tensors.cast_floating(value, wide)
        return self.module.ref_kernel(value)

    def bind(self, case: Case, data: CaseData) -> Callable[[list[Any]], Any]:
        """Like ``run`` but on the given inputs themselves (no clone), so that what the reference
        writes into its inputs (output buffers) can be observed."""
        def call(inputs: list[Any]) -> Any:
            torch.manual_seed(case.weights_seed)
            return self.module.ref_kernel(inputs[0])

        return call

    def check(self, data: CaseData, candidate: Any) -> dict[str, Any] | None:
        checker = getattr(self.module, "check_implementation", None)
        if checker is None:
            return None
        verdict = checker(tensors.clone(data.inputs[0]), tensors.move(candidate, self.device))
        if isinstance(verdict, tuple):
            ok, msg = bool(verdict[0]), str(verdict[1]) if len(verdict) > 1 else ""
        elif isinstance(verdict, str):
            ok, msg = not verdict, verdict
        else:
            ok, msg = bool(verdict), ""
        return {"ok": ok, "message": msg[:2000], "tolerances": list(gpumode_shim.TOLERANCES)}


class GpuModeSubmission(SubmissionProgram):
    format = "gpumode"

    def __init__(self, spec: dict[str, Any], device: str) -> None:
        super().__init__(spec, device)
        path = Path(spec["submission_path"])
        _prepare(path.parent)
        self.module = import_file(path, "submission")
        name = spec.get("entry") or "custom_kernel"
        if not hasattr(self.module, name):
            raise AttributeError(f"submission {path.name} defines no {name}")
        self.fn = getattr(self.module, name)

    def run(self, case: Case, data: CaseData) -> Any:
        torch.manual_seed(case.weights_seed)
        return self.fn(data.inputs[0])


register(GpuModeReference, GpuModeSubmission)
