"""The reference's core operators withheld at the dispatcher (tools/engine/harness/withheld_ops.py): every
caller gets poison, whatever thread, overload or in-place twin it uses. Run in a fresh interpreter: the
registrations last as long as the process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]

_SCRIPT = r"""
import json, threading
import torch
from tools.engine.harness.withheld_ops import withhold

x = torch.randn(4, 6)
before = torch.softmax(x, -1)
done = withhold(["aten::_softmax", "aten::argmax", "aten::add", "aten::copy_", "prims::whatever"], ["matmul"])
a, b = torch.randn(3, 4), torch.randn(4, 5)
box = []
t = threading.Thread(target=lambda: box.append(torch.softmax(x, -1)))
t.start(); t.join()
out = torch.empty(4, 6)
torch._softmax(x, -1, False, out=out)
y = torch.ones(3)
y.add_(1)
report = {
    "withheld": done,
    "thread_nan": bool(box[0].isnan().all()),
    "method_nan": bool(x.softmax(-1).isnan().all()),
    "shape": list(box[0].shape), "strides": list(box[0].stride()),
    "out_nan": bool(out.isnan().all()),
    "argmax": torch.argmax(x, -1).tolist(),
    "add_inplace": y.tolist(),
    "add_int": (torch.arange(3) + torch.arange(3)).tolist(),
    "copy_kept": bool(torch.equal(torch.empty(2).copy_(torch.tensor([1.0, 2.0])), torch.tensor([1.0, 2.0]))),
    "log_softmax_kept": bool(torch.isfinite(torch.log_softmax(x, -1)).all()),
    "before_finite": bool(torch.isfinite(before).all()),
    # the family: the same work through another operator of it
    "matmul_family_nan": [bool(f().isnan().all()) for f in (lambda: a @ b, lambda: torch.mm(a, b),
                          lambda: torch.einsum("ij,jk->ik", a, b), lambda: torch.nn.functional.linear(a, b.t()),
                          lambda: torch.addmm(torch.zeros(3, 5), a, b))],
}
print(json.dumps(report))
"""


def test_every_caller_gets_poison_and_the_harness_operators_are_never_withheld() -> None:
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert "aten::_softmax" in r["withheld"] and "aten::_softmax.out" in r["withheld"]
    assert "aten::add.Tensor" in r["withheld"] and "aten::add_.Tensor" in r["withheld"]  # the in-place twin too
    assert not any(n.startswith(("aten::copy", "prims::")) for n in r["withheld"])
    assert r["before_finite"] and r["thread_nan"] and r["method_nan"] and r["out_nan"]
    assert r["shape"] == [4, 6] and r["strides"] == [6, 1]
    assert r["argmax"] == [-1] * 4  # integers: -1
    assert len(r["add_inplace"]) == 3 and all(v != v for v in r["add_inplace"])  # NaN, written in place
    assert r["add_int"] == [-1, -1, -1]
    assert r["copy_kept"] and r["log_softmax_kept"]
    assert r["matmul_family_nan"] == [True] * 5
