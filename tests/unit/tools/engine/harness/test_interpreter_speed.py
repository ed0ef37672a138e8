"""The interpreter's repeated patching of triton.language is skipped where it would change nothing
(tools/engine/harness/interpreter_speed.py), and nothing else changes: the same outputs bit for bit, the
same errors, and the same builtins left in place after each launch, on kernels whose programs call
helpers (tl.max, tl.sum, a helper module's alias of a builtin and a tl.reduce combine function). Each mode
runs in a fresh interpreter-mode process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
KERNELS = Path(__file__).resolve().parent / "speed_kernels"

SCRIPT = r"""
import json, sys
import torch
import triton.language as tl
from triton.runtime import interpreter
from tools.engine.harness import interpreter_gaps, interpreter_speed

interpreter_gaps.patch(interpreter)
gaps = interpreter._patch_lang
undo = interpreter_speed.patch_repeats(interpreter) if sys.argv[1] == "1" else None
import kernels

def builtins_in_place():
    return sorted(f"{m.__name__}.{k}" for m in (tl, tl.core, tl.math) for k, v in vars(m).items() if tl.core.is_builtin(v))

torch.manual_seed(0)
x = torch.randn(6, 20)
out = {"wrapped": undo is not None, "runs": []}
for fn in (kernels.softmax, kernels.scaled_rows, kernels.softmax):
    y = fn(x)
    out["runs"].append({"bits": y.view(torch.int32).tolist(), "builtins": builtins_in_place()})
try:
    kernels.softmax(torch.randn(2, 4)[:, :3].contiguous())  # BLOCK 4 fails the static_assert
    out["error"] = None
except Exception as exc:
    out["error"] = type(exc).__name__ + ": " + str(exc)[:200]
if undo is not None:
    undo()
out["restored"] = interpreter._patch_lang is gaps  # undone: the gaps' patch is the interpreter's again
print(json.dumps(out))
"""


def _run(speed: bool) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), str(KERNELS)])}
    done = subprocess.run([sys.executable, "-c", SCRIPT, "1" if speed else "0"], capture_output=True, text=True,
                          env=env, timeout=180, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_skipping_repeated_patches_changes_no_output_error_or_patch_state() -> None:
    plain, fast = _run(speed=False), _run(speed=True)
    assert fast["wrapped"] and not plain["wrapped"]
    assert fast["runs"] == plain["runs"]  # outputs bit for bit, builtins in place after each launch
    assert plain["runs"][0]["builtins"], "the launch restores the builtins of tl"
    # the gaps' static_assert (interpreter_gaps.py) is still the one in place on a skipped helper call
    assert fast["error"] == plain["error"] and "CompileTimeAssertionFailure" in (fast["error"] or ""), fast["error"]
    assert fast["restored"]


PATCHES = r"""
import sys
import torch
from triton.runtime import interpreter
from tools.engine.harness import interpreter_gaps, interpreter_speed

interpreter_gaps.patch(interpreter)
calls = {"full": 0}
inner = interpreter._patch_lang
def counting(fn, *rest, **kw):
    calls["full"] += 1
    return inner(fn, *rest, **kw)
interpreter._patch_lang = counting
if sys.argv[1] == "1":
    interpreter_speed.patch_repeats(interpreter)
import kernels
kernels.softmax(torch.randn(6, 20))
print(calls["full"])
"""


def test_a_helper_call_repeats_no_patch_already_in_place() -> None:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), str(KERNELS)])}
    counts = []
    for speed in ("0", "1"):
        done = subprocess.run([sys.executable, "-c", PATCHES, speed], capture_output=True, text=True, env=env,
                              timeout=180, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-3000:]
        counts.append(int(done.stdout.split()[-1]))
    # 6 programs, each calling row_max (and its combine function), tl.max and tl.sum: every call patches
    # without the skip; with it the launch patches once and the first call of each helper module once more
    assert counts[0] >= 6 * 3 + 1, counts
    assert counts[1] <= 4, counts
