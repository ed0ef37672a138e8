"""The interpreter does what compiled Triton does where it used not to (tools/engine/harness/interpreter_gaps.py):
a Python float argument is an fp32 scalar, a module-level alias of a ``tl`` builtin works. Each kernel file of
tests/kernels/interpreter_gaps runs in a fresh interpreter-mode process, without and with the shims."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kernelfiles import KERNELS

ROOT = Path(__file__).resolve().parents[5]
FAMILY = KERNELS / "interpreter_gaps"

SCRIPT = r"""
import importlib.util, json, sys
import torch
from triton.runtime import interpreter
from tools.engine.harness import interpreter_gaps

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

ref = load(sys.argv[1], "reference")
sub = load(sys.argv[2], "submission")
undo = interpreter_gaps.patch(interpreter) if sys.argv[3] == "1" else None
x = torch.randn(8, 300)
try:
    y = sub.ModelNew(0.75)(x)
    ok = torch.allclose(y, ref.Model(0.75)(x), rtol=1e-5, atol=1e-6)
    out = {"ok": bool(ok), "error": None}
except Exception as exc:
    out = {"ok": False, "error": repr(exc)[:300]}
if undo is not None:
    undo()
print(json.dumps(out))
"""


def _run(kernel: str, shims: bool) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(FAMILY / "reference.py"), str(FAMILY / kernel),
                           "1" if shims else "0"], capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("kernel", "without"), [
    ("good_float_scalar_arg.py", "object has no attribute"),
    ("good_builtin_alias.py", "Did you forget to add @triton.jit"),
])
def test_code_that_compiles_runs_under_the_interpreter(kernel: str, without: str) -> None:
    bare = _run(kernel, shims=False)
    assert not bare["ok"] and without in (bare["error"] or ""), bare  # the gap, as Triton 3.8 has it
    assert _run(kernel, shims=True) == {"ok": True, "error": None}
