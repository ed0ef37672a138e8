"""The reference child's task probes, in-process on small KernelBench references: numbers for an
in-place reference, an ignored input, a sensitive one, and a module's parameters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tools.engine.harness.tensors as tensors
from tools.engine.harness.case import Case
from tools.engine.harness.kernelbench import KernelBenchReference
from tools.engine.harness.op_table import OPS, ChildState
from tools.engine.harness.task_requests import _task_probe  # noqa: F401 - registers the request

REF = '''import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 4)
        nn.init.zeros_(self.lin.bias)

    def forward(self, x, unused, buf):
        buf.mul_(2.0)
        return self.lin(x) + 0.0 * unused.sum() + buf.sum() * 0.0

def get_inputs():
    return [torch.randn(3, 8), torch.randn(3, 8), torch.rand(3, 8)]

def get_init_inputs():
    return []
'''


def _probe(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / "reference.py").write_text(REF)
    state = ChildState({"device": "cpu"})
    state.reference = KernelBenchReference({"reference_path": str(tmp_path / "reference.py")}, "cpu")
    case = Case(id="c", seed=3)
    data = state.reference.make_case(case)
    tensors.save({"init": data.init, "inputs": data.inputs, "kinds": {}}, str(tmp_path / "inputs.pt"))
    return OPS["task_probe"]({"case": case.model_dump(), "inputs_path": str(tmp_path / "inputs.pt"),
                              "atol": 1e-4, "rtol": 1e-4, "seed": 1}, state)


def test_probe_numbers(tmp_path: Path) -> None:
    out = _probe(tmp_path)
    assert out["mutated_inputs"] == ["2"]
    assert out["second_run"]["same_bits"]
    probes = {p["path"]: p for p in out["input_probes"]}
    assert not probes["0"]["within_tol"] and probes["1"]["within_tol"] and probes["2"]["within_tol"]
    params = {p["path"]: p for p in out["param_probes"]}
    assert params["lin.bias"]["all_zero"] and not params["lin.weight"]["all_zero"]
    assert not params["lin.weight"]["within_tol"] and not params["lin.bias"]["within_tol"]
    stats = {s["path"]: s for s in out["inputs"]}
    assert stats["2"]["min"] >= 0 and stats["0"]["min"] < 0 and stats["0"]["shape"] == [3, 8]
