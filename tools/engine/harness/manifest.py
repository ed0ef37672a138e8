"""Own manifest (``kreview.toml``), function style: ``inputs(seed=..., **params)`` returns the
argument list, ``reference(*args)`` and ``submission(*args)`` return the outputs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import tools.engine.harness.tensors as tensors
from tools.engine.harness.case import Case
from tools.engine.harness.cuda_ext import load_cu
from tools.engine.harness.kernelbench import dtype_of
from tools.engine.harness.loader import import_file
from tools.engine.harness.programs import CaseData, ReferenceProgram, SubmissionProgram, register


def _entry(path: Path, module_name: str, name: str, module: Any = None) -> Any:
    module = module or import_file(path, module_name)
    if not hasattr(module, name):
        raise AttributeError(f"{path.name} defines no {name}")
    return getattr(module, name)


class ManifestProgram(ReferenceProgram):
    format = "manifest"

    def __init__(self, spec: dict[str, Any], device: str) -> None:
        super().__init__(spec, device)
        ref_path = Path(spec["reference_path"])
        ref_module = import_file(ref_path, "reference")
        self.fn = _entry(ref_path, "reference", spec["reference_entry"], ref_module)
        inputs_path = Path(spec.get("inputs_path") or ref_path)
        same = inputs_path == ref_path
        self.make = _entry(inputs_path, "reference_inputs", spec["inputs_entry"], ref_module if same else None)

    def make_case(self, case: Case) -> CaseData:
        torch.manual_seed(case.seed)
        args = self.make(seed=case.seed, **case.params)
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        dt = dtype_of(case.dtype)
        if dt is not None:
            args = tensors.cast_floating(args, dt)
        return CaseData(inputs=args)

    def run(self, case: Case, data: CaseData) -> Any:
        torch.manual_seed(case.weights_seed)
        args = tensors.clone(data.inputs)
        wide = dtype_of(case.reference_dtype)
        if wide is not None:
            args = tensors.cast_floating(args, wide)
        return self.fn(*args)

    def bind(self, case: Case, data: CaseData) -> Callable[[list[Any]], Any]:
        """Like ``run`` but on the given inputs themselves (no clone): their mutation is observable."""
        def call(inputs: list[Any]) -> Any:
            torch.manual_seed(case.weights_seed)
            return self.fn(*inputs)

        return call


class ManifestSubmission(SubmissionProgram):
    format = "manifest"

    def __init__(self, spec: dict[str, Any], device: str) -> None:
        super().__init__(spec, device)
        path = Path(spec["submission_path"])
        if path.suffix == ".cu":
            self.fn = load_cu(path, spec["entry"])
        else:
            self.fn = _entry(path, "submission", spec["entry"])

    def run(self, case: Case, data: CaseData) -> Any:
        torch.manual_seed(case.weights_seed)
        return self.fn(*data.inputs)


register(ManifestProgram, ManifestSubmission)
