"""Host copies of tensors withheld in the withheld run (tools/engine/harness/withheld_exports.py): a
submission's copies out of torch answer with poison past the allowance, counted over the whole call and
across helper threads; the harness's own conversions do not, and code compiled under a harness file name
is not the harness. Run in a fresh interpreter: ``follow_threads`` patches the process's thread starters."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]

_SCRIPT = r"""
import json, math, threading
import numpy as np
import torch
import tools.engine.harness.arrays as arrays
from tools.engine.harness.instruments.torch_ops import follow_threads
from tools.engine.harness.withheld_exports import ExportsWithheld, allowance

follow_threads()
x = torch.randn(64, 64)
expected = x.detach().numpy().copy()
report = {"allowance": allowance(x.numel())}
with ExportsWithheld(allowance(x.numel())) as ex:
    report["small_list"] = torch.arange(8).tolist()
    report["scalar"] = float(torch.tensor(2.5))
    report["array_nan"] = bool(np.isnan(np.asarray(x)).all())
    box = []
    t = threading.Thread(target=lambda: box.append(x[0].numpy().copy()))
    t.start(); t.join()
    report["thread_nan"] = bool(np.isnan(box[0]).all())
    report["rows_nan"] = all(math.isnan(v) for i in range(4) for v in x[i].tolist())
    report["ints"] = torch.arange(5).tolist()
    ns = {"x": x}
    exec(compile("fake = x.numpy().copy()", arrays.__file__, "exec"), ns)
    report["fake_harness_nan"] = bool(np.isnan(ns["fake"]).all())
    report["harness_equal"] = bool(np.array_equal(arrays.torch_to_numpy(x), expected))
    report["storage_poisoned"] = x.untyped_storage().data_ptr() != x.data_ptr()
report["after_equal"] = bool(np.array_equal(np.asarray(x), expected))
report["poisoned"] = ex.poisoned
report["copied"] = ex.copied
print(json.dumps(report))
"""


def _run() -> dict:
    done = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_copies_past_the_allowance_answer_with_poison_and_the_harness_keeps_its_own() -> None:
    r = _run()
    assert r["allowance"] == 256
    # a few elements (offsets, a scale) copy honestly
    assert r["small_list"] == list(range(8)) and r["scalar"] == 2.5
    # the whole input through NumPy, a helper thread's copy and the rows one by one: poison
    assert r["array_nan"] and r["thread_nan"] and r["rows_nan"]
    # once past the allowance every further copy is poisoned, integers too (-1)
    assert r["ints"] == [-1] * 5
    # code compiled under a harness file name is not the harness; the harness's own conversion is
    assert r["fake_harness_nan"] and r["harness_equal"]
    assert r["storage_poisoned"]
    # outside the window copies are honest again
    assert r["after_equal"]
    apis = {p["api"] for p in r["poisoned"]}
    assert {"Tensor.__array__", "Tensor.numpy", "Tensor.tolist", "Tensor.untyped_storage"} <= apis
    sites = [p for p in r["poisoned"] if p["api"] == "Tensor.__array__"]
    assert sites and sites[0]["elements"] == 4096 and sites[0]["line"] > 0
    # counted: 8 + 1 + 4096 + 64 + 4*64 + 5 + 4096 (+ the harness's, not counted) + the storage's 4096
    assert r["copied"] == 8 + 1 + 4096 + 64 + 256 + 5 + 4096 + 4096
