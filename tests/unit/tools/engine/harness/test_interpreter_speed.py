"""The interpreter's repeated patching of triton.language is skipped where it would change nothing, and its
dtype lookups keep their answers (tools/engine/harness/interpreter_speed.py), and nothing else changes: the
same outputs bit for bit, the same errors, and the same builtins left in place after each launch, on kernels
whose programs call helpers (tl.max, tl.sum, a helper module's alias of a builtin and a tl.reduce combine
function) or convert between every dtype the interpreter maps to numpy. Each mode runs in a fresh
interpreter-mode process."""

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
lookup = interpreter._get_np_dtype
unmemo = interpreter_speed.memo_np_dtype(interpreter) if sys.argv[1] == "1" else None
import kernels

def builtins_in_place():
    return sorted(f"{m.__name__}.{k}" for m in (tl, tl.core, tl.math) for k, v in vars(m).items() if tl.core.is_builtin(v))

torch.manual_seed(0)
x = torch.randn(6, 20)
out = {"wrapped": undo is not None, "kept": unmemo is not None, "runs": []}
for fn in (kernels.softmax, kernels.scaled_rows, kernels.mixed_dtypes, kernels.softmax):
    y = fn(x)
    out["runs"].append({"bits": y.view(torch.int32).tolist(), "builtins": builtins_in_place()})
try:
    kernels.softmax(torch.randn(2, 4)[:, :3].contiguous())  # BLOCK 4 fails the static_assert
    out["error"] = None
except Exception as exc:
    out["error"] = type(exc).__name__ + ": " + str(exc)[:200]
if undo is not None:
    undo()
if unmemo is not None:
    unmemo()
# undone: the gaps' patch is the interpreter's again, and its own dtype lookup
out["restored"] = interpreter._patch_lang is gaps and interpreter._get_np_dtype is lookup
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
    assert fast["wrapped"] and not plain["wrapped"] and fast["kept"] and not plain["kept"]
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


def _failure(fn: object, arg: object) -> tuple[str, str, bool, tuple[str, int]] | None:
    """How ``fn(arg)`` fails: its exception's type and text, whether anything is chained to it, and the
    file and line that raised it; None if it does not fail."""
    import traceback

    try:
        fn(arg)  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - whatever the interpreter raises
        last = traceback.extract_tb(exc.__traceback__)[-1]
        return type(exc).__name__, str(exc), exc.__context__ is None, (last.filename, last.lineno or 0)
    return None


def test_kept_dtype_answers_are_the_interpreters_own() -> None:
    """Every dtype the interpreter maps (scalars, pointers, blocks of either) gets the numpy dtype its own
    function gives, asked once per dtype (a block of scalars is answered by its element type); what it does
    not map fails the same way, from the interpreter's own line, with nothing chained; undone, the
    interpreter's function is back."""
    import functools
    import types

    import triton.language as tl
    from triton.runtime import interpreter

    from tools.engine.harness import interpreter_speed

    original = interpreter._get_np_dtype
    asked: list[object] = []

    @functools.wraps(original)  # the shape check reads the wrapped function's source
    def counted(tt: object) -> object:
        asked.append(tt)
        return original(tt)

    interp = types.SimpleNamespace(_get_np_dtype=counted)
    undo = interpreter_speed.memo_np_dtype(interp)
    assert undo is not None
    memo = interp._get_np_dtype
    assert interpreter_speed.memo_np_dtype(interp) is None  # never wrapped twice
    scalars = [tl.int1, tl.float16, tl.float32, tl.float64, tl.int8, tl.uint8, tl.int16, tl.uint16, tl.int32,
               tl.uint32, tl.int64, tl.uint64, tl.bfloat16, tl.float8e5, tl.float8e5b16, tl.float8e4nv,
               tl.float8e4b8, tl.float8e4b15]
    pointers = [tl.pointer_type(s) for s in scalars[:4]]
    kinds = [*scalars, *pointers, *(tl.block_type(s, [4, 8]) for s in scalars),
             tl.block_type(tl.pointer_type(tl.float32), [16])]
    for tt in kinds * 2:
        assert memo(tt) == original(tt), tt
    # a scalar dtype is asked once, whatever block holds it; one without a hash (Triton's pointer_type has
    # none) is asked every time, as the interpreter itself does
    hashable = [a for a in asked if getattr(type(a), "__hash__", None) is not None]
    assert sorted(map(str, hashable)) == sorted(map(str, scalars)), hashable
    assert not any(isinstance(a, tl.block_type) and not isinstance(a.element_ty, tl.pointer_type) for a in asked), \
        "a block of scalars is answered by its element type"
    # counted's own frame is one more between the caller and the interpreter's line: compare from that line
    bad = [tl.void, tl.block_type(tl.void, [2]), tl.block_type(tl.block_type(tl.float32, [2]), [2]), None, 3]
    for tt in bad:
        want = _failure(original, tt)
        assert want is not None, tt
        assert _failure(memo, tt) == want, tt
    undo()
    assert interp._get_np_dtype is counted
