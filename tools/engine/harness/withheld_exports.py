"""Host copies of tensors withheld from a submission child (the withheld run's second half).

Withholding the reference's core operators at the dispatcher (withheld_ops.py) leaves one way to do the
work unseen: copy the tensor's values out of torch and compute on them elsewhere (NumPy, a Python loop,
any library that takes an array), then copy the result back into an output a kernel only touches. Those
copies are no aten operator; they are torch functions, and a ``TorchFunctionMode`` sees them:
``Tensor.numpy``, ``Tensor.__array__`` (``np.asarray(t)``, and every NumPy function given a tensor),
``Tensor.tolist``, ``Tensor.__dlpack__`` (``np.from_dlpack``, JAX, CuPy), ``Tensor.item`` and the
number conversions, ``Tensor.untyped_storage`` and ``Tensor.storage``.

While ``ExportsWithheld`` is entered, such a copy made by the submission's own code (or by a library it
called: the caller is found by walking out past library frames, tools/engine/harness/frames.py) answers
with a poisoned copy of the tensor instead of the tensor (the launcher's own copies during a kernel launch,
found by the operator recorder's launch rule, and the harness's are left alone), once the elements copied in this call exceed an
allowance: a kernel's forward reads a scale or a few offsets on the host legitimately, never the data.
The allowance is ``max(16, largest input / 16)`` elements, counted over the whole call, so copying the
data out in small pieces reaches it too. Helper threads are covered through the hand-off that
``follow_threads`` installs (instruments/torch_ops.py ``HANDED_FUNCTIONS``).

Not covered, and left to the static scan (tools/integrity/static_scan.py): memory read by address
(``ctypes`` on ``data_ptr()``), and code run with the function modes switched off.
"""

from __future__ import annotations

import sys
from typing import Any, Self

import torch
from torch.overrides import TorchFunctionMode

import tools.engine.harness.frames as frames
import tools.engine.harness.own_code as own_code
import tools.engine.harness.instruments.torch_ops as torch_ops
from tools.engine.harness.instruments.torch_ops import HANDED_FUNCTIONS, OpRecorder
from tools.engine.harness.withheld_ops import poisoned

EXPORTS = frozenset({"numpy", "__array__", "tolist", "__dlpack__", "item", "__float__", "__int__", "__complex__",
                     "untyped_storage", "storage"})
_SELF = frozenset({__file__})
_MODES = frozenset({torch_ops._HandedFunction.__torch_function__.__code__,
                    torch_ops._Function.__torch_function__.__code__, OpRecorder._on_function.__code__})
_MAX_SITES = 20
_DEPTH = 1000  # as the launch rule's walk: a copy made deep inside a library still reaches its caller
MIN_ALLOWANCE = 16


def _genuine(frame: Any) -> bool:
    """Whether a frame filed under the harness by its file name runs the harness's own code
    (tools/engine/harness/own_code.py): code compiled under a harness file name is not."""
    return own_code.is_own_code(frame.f_code)


def allowance(largest_input: int) -> int:
    """Elements a call may copy to the host before the copies answer with poison."""
    return max(MIN_ALLOWANCE, int(largest_input) // 16)


class ExportsWithheld(TorchFunctionMode):
    """Poisons the host copies a submission's call makes beyond ``allowance`` elements; ``poisoned`` lists
    each distinct (function, site) that got poison, with its count and elements."""

    def __init__(self, allowance: int, root: str | None = None, launches: OpRecorder | None = None) -> None:
        super().__init__()
        self.allowance = allowance
        self.root = root
        self.launches = launches
        self.copied = 0
        self.poisoned: list[dict[str, Any]] = []

    def __enter__(self) -> Self:
        HANDED_FUNCTIONS.append(self)
        return super().__enter__()

    def __exit__(self, *exc: object) -> None:
        HANDED_FUNCTIONS.remove(self)
        super().__exit__(*exc)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return self.on_function(func, types, args, kwargs)

    def on_function(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name not in EXPORTS or not args or not isinstance(args[0], torch.Tensor):
            return func(*args, **kwargs)
        caller = sys._getframe(1)
        while caller is not None and (caller.f_code.co_filename in _SELF or caller.f_code in _MODES):
            caller = caller.f_back  # this module's frames, and the other function modes handing the call on
        if self.launches is not None and self.launches.by_launcher(caller):
            return func(*args, **kwargs)  # the launcher's own (the interpreter reads argument storages)
        who, frame = frames.outward(caller, skip=_SELF, depth=_DEPTH)
        if who == "import" or (who == "harness" and _genuine(frame)):
            # the harness converting inputs or outputs between array kinds
            return func(*args, **kwargs)
        site = frames.origin(frame, self.root)[1] if who == "user" else None
        tensor = args[0]
        self.copied += tensor.numel()
        if self.copied <= self.allowance:
            return func(*args, **kwargs)
        self._note(name, site, tensor.numel())
        with torch.no_grad():
            fake = poisoned(tensor.detach().clone())
        return func(fake, *args[1:], **kwargs)

    def _note(self, name: str, site: dict[str, object] | None, numel: int) -> None:
        where = (str(site["file"]), int(site["line"])) if site else ("", 0)  # type: ignore[call-overload]
        for entry in self.poisoned:
            if (entry["api"], entry["file"], entry["line"]) == (f"Tensor.{name}", *where):
                entry["count"] += 1
                entry["elements"] += numel
                return
        if len(self.poisoned) < _MAX_SITES:
            self.poisoned.append({"api": f"Tensor.{name}", "file": where[0], "line": where[1], "count": 1,
                                  "elements": numel})
