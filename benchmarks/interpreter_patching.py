"""Cost of the Triton interpreter's repeated patching of triton.language and of its dtype lookups, and what
skipping the repeats and keeping the lookups' answers save (tools/engine/harness/interpreter_speed.py).

    python benchmarks/interpreter_patching.py [SUBMISSION_DIR ...] [--calls 100]

For each KernelBench-style submission (default: three bundled Triton examples that need no GPU driver),
one fresh interpreter-mode process per mode calls ``ModelNew`` on the reference's inputs --calls times (after one
warm-up call) with the interpreter shims the review's children carry (interpreter_gaps.py), without and
with the skip and the kept dtype answers (the "skip" columns), and reports milliseconds per call, the time
inside ``_patch_lang``, and whether the outputs are equal bit for bit. Both modes of a kernel run back to
back, so their ratio shares the machine's load.
Prints a table and JSON on the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ("examples/softmax_triton", "examples/compare_rowsum/triton_column_walk", "examples/gelu_triton_buggy")

SCRIPT = r"""
import importlib.util, json, sys, time
import torch
from triton.runtime import interpreter
from tools.engine.harness import interpreter_gaps, interpreter_speed

folder, skip, calls = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
interpreter_gaps.patch(interpreter)
spent = [0.0]
inner = interpreter._patch_lang
def timed(fn, *rest, **kw):
    t = time.perf_counter()
    try:
        return inner(fn, *rest, **kw)
    finally:
        spent[0] += time.perf_counter() - t
interpreter._patch_lang = timed
if skip:
    interpreter_speed.patch(interpreter)
    assert getattr(interpreter._patch_lang, "_kreview_repeats", False), "the repeats skip did not apply"
    assert getattr(interpreter._get_np_dtype, "_kreview_memo", False), "the kept dtype answers did not apply"

def load(name):
    spec = importlib.util.spec_from_file_location(name, f"{folder}/{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

sys.path.insert(0, folder)
ref, sub = load("reference"), load("submission")
torch.manual_seed(0)
inputs = ref.get_inputs()
model = sub.ModelNew(*ref.get_init_inputs())
first = model(*inputs)
spent[0] = 0.0
t = time.perf_counter()
for _ in range(calls):
    out = model(*inputs)
wall = time.perf_counter() - t
bits = out.detach().contiguous().view(torch.uint8).flatten()
print(json.dumps({"ms_per_call": 1e3 * wall / calls, "patch_ms_per_call": 1e3 * spent[0] / calls,
                  "digest": int(bits.to(torch.int64).mul(torch.arange(1, bits.numel() + 1)).sum()) % (1 << 61)}))
"""


def _run(folder: Path, skip: bool, calls: int) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), "1" if skip else "0", str(calls)],
                          capture_output=True, text=True, env=env, timeout=1800, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{folder}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=list(DEFAULT))
    ap.add_argument("--calls", type=int, default=100)
    args = ap.parse_args()
    rows = []
    print(f"{'submission':32} {'ms/call':>9} {'skip':>9} {'ratio':>6} {'patch ms':>9} {'skip':>7}  same")
    for name in args.folders:
        folder = (ROOT / name) if not Path(name).is_absolute() else Path(name)
        plain, fast = _run(folder, False, args.calls), _run(folder, True, args.calls)
        row = {"submission": name, "plain": plain, "skip": fast, "ratio": plain["ms_per_call"] / fast["ms_per_call"],
               "same_outputs": plain["digest"] == fast["digest"]}
        rows.append(row)
        print(f"{name:32} {plain['ms_per_call']:9.2f} {fast['ms_per_call']:9.2f} {row['ratio']:6.2f} "
              f"{plain['patch_ms_per_call']:9.2f} {fast['patch_ms_per_call']:7.2f}  {row['same_outputs']}")
    print(json.dumps({"calls": args.calls, "rows": rows}))
    return 0 if all(r["same_outputs"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
