"""KernelBench: ``Model``/``get_inputs``/``get_init_inputs`` in the reference, ``ModelNew`` in the
submission.

Seeding follows KernelBench's eval: the same seed before constructing ``Model`` and ``ModelNew`` so
their parameters agree (``Case.weights_seed``), and a seed before ``get_inputs``. Size constants are rebound by rewriting
the reference module before it runs (``loader.import_file``), so derived constants follow.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import tools.engine.harness.tensors as tensors
from tools.engine.harness.case import Case
from tools.engine.harness.loader import import_file
from tools.engine.harness.programs import CaseData, ReferenceProgram, SubmissionProgram, register

_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
           "float64": torch.float64}


def dtype_of(name: str | None) -> torch.dtype | None:
    if name is None:
        return None
    if name not in _DTYPES:
        raise ValueError(f"unsupported dtype {name!r}")
    return _DTYPES[name]


def override_init(init: list[Any], overrides: dict[int, float]) -> list[Any]:
    """``init`` with the float entries ``overrides`` names replaced. Rationale: the varied value reaches
    the reference and the submission alike (both are built from these saved init inputs); an entry that
    is missing or not a float is refused, so the probe is reported not applicable, never run on
    something the task does not construct."""
    out = list(init)
    for index, value in sorted(overrides.items()):
        if not 0 <= index < len(out):
            raise IndexError(f"get_init_inputs() has {len(out)} entries, no [{index}] to vary")
        if not isinstance(out[index], float):
            raise TypeError(f"get_init_inputs()[{index}] is {type(out[index]).__name__}, not a float to vary")
        out[index] = float(value)
    return out


def _build_model(cls: type, case: Case, data: CaseData, device: str, widen: torch.dtype | None = None) -> Any:
    """Construct under the case's seed. ``widen`` (reference only): after the cast to the case's
    dtype, up-cast the model exactly, so only the arithmetic gets wider."""
    torch.manual_seed(case.weights_seed)
    model = cls(*data.init)
    dt = dtype_of(case.dtype)
    if isinstance(model, torch.nn.Module):
        if dt is not None:
            model = model.to(dt)
        if widen is not None:
            model = model.to(widen)
        model = model.to(device)
        model.eval()
    return model


def _bound_model(cls: type, case: Case, data: CaseData, device: str,
                 widen: torch.dtype | None = None) -> Callable[[list[Any]], Any]:
    model = _build_model(cls, case, data, device, widen)

    def call(inputs: list[Any]) -> Any:
        if widen is not None:
            inputs = tensors.cast_floating(inputs, widen)
        with torch.no_grad():
            return model(*inputs)

    return call


def _call_model(cls: type, case: Case, data: CaseData, device: str, widen: torch.dtype | None = None) -> Any:
    return _bound_model(cls, case, data, device, widen)(data.inputs)


class KernelBenchReference(ReferenceProgram):
    format = "kernelbench"

    def __init__(self, spec: dict[str, Any], device: str) -> None:
        super().__init__(spec, device)
        self.path = Path(spec["reference_path"])
        self._modules: dict[str, Any] = {}
        self.module_for({})

    def module_for(self, params: dict[str, Any]) -> Any:
        key = repr(sorted(params.items()))
        if key not in self._modules:
            self._modules[key] = import_file(self.path, "reference", params or None)
        mod = self._modules[key]
        for name in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(mod, name):
                raise AttributeError(f"reference {self.path.name} defines no {name}")
        return mod

    def make_case(self, case: Case) -> CaseData:
        mod = self.module_for(case.params)
        torch.manual_seed(case.weights_seed)
        init = override_init(list(mod.get_init_inputs()), case.init_args)
        torch.manual_seed(case.seed + 1)
        inputs = list(mod.get_inputs())
        dt = dtype_of(case.dtype)
        if dt is not None:
            inputs = tensors.cast_floating(inputs, dt)
        return CaseData(init=init, inputs=inputs)

    def run(self, case: Case, data: CaseData) -> Any:
        return _call_model(self.module_for(case.params).Model, case, data, self.device,
                           widen=dtype_of(case.reference_dtype))

    def bind(self, case: Case, data: CaseData) -> Callable[[list[Any]], Any]:
        return _bound_model(self.module_for(case.params).Model, case, data, self.device)

    def model(self, case: Case, data: CaseData) -> Any:
        return _build_model(self.module_for(case.params).Model, case, data, self.device)


class KernelBenchSubmission(SubmissionProgram):
    format = "kernelbench"

    def __init__(self, spec: dict[str, Any], device: str) -> None:
        super().__init__(spec, device)
        self.module = import_file(Path(spec["submission_path"]), "submission")
        name = spec.get("entry") or "ModelNew"
        if not hasattr(self.module, name):
            raise AttributeError(f"submission {Path(spec['submission_path']).name} defines no {name}")
        self.cls = getattr(self.module, name)

    def run(self, case: Case, data: CaseData) -> Any:
        return _call_model(self.cls, case, data, self.device)

    def bind(self, case: Case, data: CaseData) -> Callable[[list[Any]], Any]:
        return _bound_model(self.cls, case, data, self.device)


register(KernelBenchReference, KernelBenchSubmission)
