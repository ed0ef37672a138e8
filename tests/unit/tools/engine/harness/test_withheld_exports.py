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
import _thread, json, math, operator, threading
import numpy as np
import torch
import torch.utils.dlpack
import tools.engine.harness.arrays as arrays
from tools.engine.harness.instruments.torch_ops import follow_threads
from tools.engine.harness.withheld_exports import ExportsWithheld, allowance

follow_threads()
x = torch.randn(64, 64)
expected = x.detach().numpy().copy()
to_before = torch.utils.dlpack.to_dlpack
report = {"allowance": allowance(x.numel())}
with ExportsWithheld(allowance(x.numel())) as ex:
    report["small_list"] = torch.arange(8).tolist()
    report["scalar"] = float(torch.tensor(2.5))
    report["array_nan"] = bool(np.isnan(np.asarray(x)).all())
    box = []
    t = threading.Thread(target=lambda: box.append(x[0].numpy().copy()))
    t.start(); t.join()
    report["thread_nan"] = bool(np.isnan(box[0]).all())
    # a thread with no mode at all: started through the plain starter, read back from the hand-off's wrapper
    plain, done = _thread.start_new_thread.__kwdefaults__["_original"], _thread.allocate_lock()
    done.acquire()
    plain(lambda: (box.append(x[1].numpy().copy()), done.release()), ())
    done.acquire()
    report["plain_thread_nan"] = bool(np.isnan(box[1]).all())
    report["rows_nan"] = all(math.isnan(v) for i in range(4) for v in x[i].tolist())
    report["ints"] = torch.arange(5).tolist()
    ns = {"x": x}
    exec(compile("fake = x.numpy().copy()", arrays.__file__, "exec"), ns)
    report["fake_harness_nan"] = bool(np.isnan(ns["fake"]).all())
    report["harness_equal"] = bool(np.array_equal(arrays.torch_to_numpy(x), expected))
    report["storage_poisoned"] = x.untyped_storage().data_ptr() != x.data_ptr()
    head = x.reshape(-1)[:1].numpy()  # one element, but its memory reaches the whole buffer
    wide = np.lib.stride_tricks.as_strided(head, shape=(64, 64), strides=(256, 4))
    report["strided_nan"] = bool(np.isnan(wide).all())
    report["repr_nan"] = "nan" in repr(x[:2, :2]).lower()
    report["index"] = operator.index(x[0, :1].view(torch.int32)[0])
    to = getattr(torch.utils.dlpack, "to_" + "dlpack")
    report["dlpack_nan"] = bool(torch.utils.dlpack.from_dlpack(to(x)).isnan().all())
report["after_equal"] = bool(np.array_equal(np.asarray(x), expected))
report["dlpack_restored"] = getattr(torch.utils.dlpack, "to_" + "dlpack") is to_before
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
    assert r["array_nan"] and r["thread_nan"] and r["plain_thread_nan"] and r["rows_nan"]
    # once past the allowance every further copy is poisoned, integers too (-1)
    assert r["ints"] == [-1] * 5
    # code compiled under a harness file name is not the harness; the harness's own conversion is
    assert r["fake_harness_nan"] and r["harness_equal"]
    assert r["storage_poisoned"]
    # memory reaching past the view (a one-element slice's array read with as_strided), the text form, an
    # __index__ conversion and to_dlpack looked up by a joined name: all poisoned (-1 as int32 bits)
    assert r["strided_nan"] and r["repr_nan"] and r["index"] == -1 and r["dlpack_nan"] and r["dlpack_restored"]
    # outside the window copies are honest again
    assert r["after_equal"]
    apis = {p["api"] for p in r["poisoned"]}
    assert {"Tensor.__array__", "Tensor.numpy", "Tensor.tolist", "Tensor.untyped_storage"} <= apis
    sites = [p for p in r["poisoned"] if p["api"] == "Tensor.__array__"]
    assert sites and sites[0]["elements"] == 4096 and sites[0]["line"] > 0
    # counted: values by the elements shown, memory by the storage from the view's first element on (row 0
    # reaches all 4096, row 1 4032); a copy made inside another (np.asarray's numpy(), repr's tolist()) counts
    # again; the harness's own conversion is not counted; the last 1 is bool()
    assert r["copied"] == (8 + 1 + 2 * 4096 + 4096 + 4032 + 256 + 5 + 4096 + 4096 + 4096 + 2 * 4 + 1 + 4096
                           + 1)


_TRANSFER_SCRIPT = r"""
import json
import torch
from tools.engine.harness.withheld_exports import ExportsWithheld, allowance

x = torch.randn(64, 64)
expected = x.clone()


class OnDevice(ExportsWithheld):
    # this machine has no GPU: x's memory stands in for device memory, every other tensor is the host's
    # (read by address: a storage would be an export of its own)
    @staticmethod
    def device_of(t):
        return "cuda" if 0 <= t.data_ptr() - x.data_ptr() < x.numel() * x.element_size() else "cpu"


report = {}
with OnDevice(allowance(x.numel())) as ex:
    report["offsets"] = x[0, :8].to("cpu", copy=True).isnan().any().item()  # 8 elements: honest
    host = torch.empty(64, 64)
    host.copy_(x)  # the whole input: past the allowance
    report["copy_nan"] = bool(host.isnan().all())
    report["to_nan"] = bool(x.to("cpu", copy=True).isnan().all())
    report["row_nan"] = bool(x[3].to(torch.float64).isnan().all())
    report["host_to_host"] = bool(torch.ones(4).to(torch.float64).eq(1).all())  # no transfer: untouched
report["x_untouched"] = bool(torch.equal(x, expected))
report["poisoned"] = ex.poisoned
report["copied"] = ex.copied
print(json.dumps(report))
"""


def test_a_transfer_from_a_device_to_the_host_is_a_copy_and_past_the_allowance_hands_over_poison() -> None:
    # On a GPU a host copy starts with x.cpu(), x.to("cpu") or host.copy_(x): the transfers count the source's
    # elements and poison the host tensor in place past the allowance (the device itself stood in, see above)
    done = subprocess.run([sys.executable, "-c", _TRANSFER_SCRIPT], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    r = json.loads(done.stdout.strip().splitlines()[-1])
    assert r["offsets"] is False  # a few elements copy honestly
    assert r["copy_nan"] and r["to_nan"] and r["row_nan"] and r["host_to_host"]
    assert r["x_untouched"]  # the source on the device is never poisoned
    # the transfers by their sources' elements, then the five one-element reads of the checks (item, bool)
    assert r["copied"] == 8 + 4096 + 4096 + 64 + 5
    copies = [(p["api"], p["line"], p["elements"]) for p in r["poisoned"] if not p["api"].startswith("Tensor.__")]
    # named at their lines: the whole input copied into a host tensor and moved, then a row (the 8 offsets were
    # honest); the one-element checks after the allowance are poisoned too, and named as such
    assert copies == [("Tensor.copy_", 22, 4096), ("Tensor.to", 24, 4096), ("Tensor.to", 25, 64)], r["poisoned"]
