"""Host copies of tensors withheld from a submission child (the withheld run's second half).

Withholding the reference's core operators at the dispatcher (withheld_ops.py) leaves one way to do the
work unseen: copy the tensor's values out of torch and compute on them elsewhere (NumPy, a Python loop,
any library that takes an array), then copy the result back into an output a kernel only touches. Those
copies are no aten operator; they are torch functions (``EXPORTS``): ``Tensor.numpy``, ``__array__``
(``np.asarray(t)``, every NumPy function given a tensor), ``__dlpack__``, ``untyped_storage``, ``storage``,
pickling, ``tolist``, ``item``, the number conversions and the text forms. On a GPU the copy starts with a
transfer to the host (``cpu``, ``to``, a host tensor's ``copy_``: ``_TRANSFERS``), counted the same way.

While ``ExportsWithheld`` is entered, such a copy made by the submission's own code (or by a library it
called: the caller is found by walking out past library frames, tools/engine/harness/frames.py) answers
with a poisoned copy once the elements copied in this call exceed ``allowance``: a kernel's forward reads a
scale or a few offsets on the host legitimately, never the data. The launcher's own copies during a kernel
launch (found by the operator recorder's launch rule) and the harness's (its own code objects,
own_code.py) are left alone. A copy is counted by what it hands over: the view's elements for values, its
storage from the view's first element on for memory (a one-element slice's zero-copy array read past its
end reaches the whole buffer); the poisoned answer keeps the view's layout on a poisoned copy of the whole
storage.

Seen three ways: the mode itself (the calling thread); the same methods shadowed on ``torch.Tensor`` for
the call (every thread, including those native code starts, which carry no mode, and copies made inside
another torch function, where the mode is popped); ``to_dlpack``, a C function no torch-function hook sees,
replaced on its modules. Not covered, and left to the static scan (tools/integrity/static_scan.py): memory
read by address (``ctypes`` on ``data_ptr()``), ``TensorBase`` methods called directly, and a
``to_dlpack`` bound before the call.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Self

import torch
import torch.utils.dlpack
from torch.overrides import TorchFunctionMode

import tools.engine.harness.frames as frames
import tools.engine.harness.own_code as own_code
import tools.engine.harness.instruments.torch_ops as torch_ops
from tools.engine.harness.instruments.torch_ops import HANDED_FUNCTIONS, OpRecorder
from tools.engine.harness.withheld_ops import poisoned

# Rationale: what hands the host a tensor's memory (the whole storage from the view's offset on: a one-element
# slice's ``numpy()`` or storage reaches every element after it, red team 1 and 11), and what hands it values
# (counted by the elements shown). The text and pickle forms carry the values too, and the copies they make
# inside run with this mode popped, so they count themselves (red team 4); __index__ and __bool__ are
# conversions like __int__ (red team 10).
_MEMORY = frozenset({"numpy", "__array__", "__dlpack__", "untyped_storage", "storage", "__reduce_ex__",
                     "__reduce__", "__getstate__"})
_VALUES = frozenset({"tolist", "item", "__float__", "__int__", "__complex__", "__index__", "__bool__", "__repr__",
                     "__str__", "__format__"})
EXPORTS = _MEMORY | _VALUES
# Rationale: on a GPU a host copy starts with a transfer (``x.cpu()``, ``x.to("cpu")``, ``host.copy_(x)``): a
# movement operator, never withheld, after which the copy methods above see a CPU tensor of the submission's
# own. A transfer from a device to the host counts its elements and, past the allowance, hands over poison.
_TRANSFERS = frozenset({"cpu", "to", "copy_"})
# shadowed on the class like the exports (threads with no mode); ``copy_`` only through the mode: the harness
# guard watches ``Tensor.copy_`` (harness_guard.WATCHED), so replacing it would read as tampering
_SHADOWED = EXPORTS | {"cpu", "to"}
_SELF = frozenset({__file__})
_MODES = frozenset({torch_ops._HandedFunction.__torch_function__.__code__,
                    torch_ops._Function.__torch_function__.__code__, OpRecorder._on_function.__code__})
_DLPACK = [(torch.utils.dlpack, "to_dlpack"), (torch, "to_dlpack"), (torch._C, "_to_dlpack"),
           (torch._C, "_to_dlpack_versioned")]
_MAX_SITES = 20
_DEPTH = 1000  # as the launch rule's walk: a copy made deep inside a library still reaches its caller
MIN_ALLOWANCE = 16


def _genuine(frame: Any) -> bool:
    """Whether a frame filed under the harness by its file name runs the harness's own code
    (tools/engine/harness/own_code.py): code compiled under a harness file name is not."""
    return own_code.is_own_code(frame.f_code)


def reachable(t: torch.Tensor) -> int:
    """Elements of ``t``'s storage from its first element on: what its memory hands the host."""
    try:
        return max(t.numel(), int(t.untyped_storage().nbytes()) // max(t.element_size(), 1) - t.storage_offset())
    except (RuntimeError, NotImplementedError):
        return t.numel()


def poisoned_twin(t: torch.Tensor) -> torch.Tensor:
    """A tensor laid out as ``t`` (same sizes, strides and offset) on a poisoned copy of its whole storage:
    reading past the view through the copy (``as_strided``) finds poison too, never other memory."""
    with torch.no_grad():
        try:
            storage = t.untyped_storage()
            base = torch.empty(int(storage.nbytes()) // max(t.element_size(), 1), dtype=t.dtype, device=t.device)
            poisoned(base)
            return base.as_strided(t.size(), t.stride(), t.storage_offset())
        except (RuntimeError, NotImplementedError, TypeError):  # a layout with no plain storage
            return poisoned(t.detach().clone())


class _ModesOff:
    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with torch._C.DisableTorchFunction():
            return self.fn(*args, **kwargs)


class _Named:
    """A callable carrying the name the mode keys on (``to_dlpack`` answers as ``Tensor.__dlpack__``)."""

    def __init__(self, fn: Any, name: str) -> None:
        self.fn, self.__name__ = fn, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


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
        self._own = threading.local()

    @staticmethod
    def device_of(t: torch.Tensor) -> str:
        """The device type a tensor's data lives on (a unit test stands in a device for it on a CPU machine)."""
        return t.device.type

    def __enter__(self) -> Self:
        HANDED_FUNCTIONS.append(self)
        self._patched = [(owner, attr, getattr(owner, attr)) for owner, attr in _DLPACK if hasattr(owner, attr)]
        for owner, attr, original in self._patched:
            setattr(owner, attr, self.to_dlpack(original))
        # Rationale: a mode belongs to a thread, and a thread native code starts (or one started through the
        # plain starter, read back from the hand-off's wrapper) carries none (red team 6 and 7); the class
        # is every thread's, so its copy methods answer as the mode does while it is entered
        self._shadowed = [(name, torch.Tensor.__dict__.get(name), getattr(torch.Tensor, name)) for name in _SHADOWED
                          if hasattr(torch.Tensor, name)]
        for name, _, original in self._shadowed:
            setattr(torch.Tensor, name, self._shadow(name, original))
        return super().__enter__()

    def __exit__(self, *exc: object) -> None:
        for name, own, _ in self._shadowed:
            if own is None:
                delattr(torch.Tensor, name)
            else:
                setattr(torch.Tensor, name, own)
        for owner, attr, original in self._patched:
            setattr(owner, attr, original)
        HANDED_FUNCTIONS.remove(self)
        super().__exit__(*exc)

    def _shadow(self, name: str, original: Any) -> Any:
        named = _Named(original, name)

        def shadow(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(self._own, "busy", False):  # this mode's own look at a tensor (its storage, its twin)
                return original(tensor, *args, **kwargs)
            # the original runs with function modes off: this mode would count the same copy twice
            return self.on_function(named, None, (tensor, *args), kwargs, modes_off=True)

        shadow.__name__ = name
        return shadow

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return self.on_function(func, types, args, kwargs)

    def on_function(self, func: Any, types: Any, args: Any, kwargs: Any, modes_off: bool = False) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if modes_off:
            func = _ModesOff(func)
        if not args or not isinstance(args[0], torch.Tensor):
            return func(*args, **kwargs)
        if name in _TRANSFERS:
            return self._transfer(name, func, args, kwargs)
        if name not in EXPORTS:
            return func(*args, **kwargs)
        copier = self._copier(sys._getframe(1))
        if copier is None:
            return func(*args, **kwargs)
        site = copier[0]
        tensor = args[0]
        self._own.busy = True
        try:  # this mode's own look at the tensor is no copy of the submission's
            with torch._C.DisableTorchFunction():
                count = reachable(tensor) if name in _MEMORY else tensor.numel()
                twin = poisoned_twin(tensor) if self._charge(name, site, count) else None
        finally:
            self._own.busy = False
        return func(*args, **kwargs) if twin is None else func(twin, *args[1:], **kwargs)

    def _charge(self, name: str, site: dict[str, object] | None, count: int) -> bool:
        """Count a copy of ``count`` elements; True (and the copy noted) once the call is past the allowance."""
        self.copied += count
        if self.copied <= self.allowance:
            return False
        self._note(name, site, count)
        return True

    def _copier(self, caller: Any) -> tuple[dict[str, object] | None] | None:
        """``(site,)`` of the submission's code that made a copy (site None: a library it called, no line of its
        own), or None where the copy is the launcher's or the harness's own."""
        while caller is not None and (caller.f_code.co_filename in _SELF or caller.f_code in _MODES):
            caller = caller.f_back  # this module's frames, and the other function modes handing the call on
        if self.launches is not None and self.launches.by_launcher(caller):
            return None  # the launcher's own (the interpreter reads argument storages)
        who, frame = frames.outward(caller, skip=_SELF, depth=_DEPTH)
        if who == "import" or (who == "harness" and _genuine(frame)):
            return None  # the harness converting inputs or outputs between array kinds
        return (frames.origin(frame, self.root)[1] if who == "user" else None,)

    def _transfer(self, name: str, func: Any, args: Any, kwargs: Any) -> Any:
        """A copy from a device to the host (``cpu``, ``to``, a host tensor's ``copy_``): run, then counted by
        the source's elements, and the host copy poisoned in place past the allowance (it is the call's own
        new tensor, or the host tensor the submission copied into)."""
        if getattr(self._own, "busy", False):
            return func(*args, **kwargs)
        src = (args[1] if len(args) > 1 else kwargs.get("src")) if name == "copy_" else args[0]
        if not isinstance(src, torch.Tensor) or self.device_of(src) == "cpu":
            return func(*args, **kwargs)
        out = func(*args, **kwargs)
        host = args[0] if name == "copy_" else out
        if not isinstance(host, torch.Tensor) or host is src or self.device_of(host) != "cpu":
            return out
        copier = self._copier(sys._getframe(2))
        if copier is None:
            return out
        self._own.busy = True
        try:
            with torch._C.DisableTorchFunction():
                if self._charge(name, copier[0], src.numel()):
                    with torch.no_grad():
                        poisoned(host)
        finally:
            self._own.busy = False
        return out

    def to_dlpack(self, original: Any) -> Any:
        """``torch.utils.dlpack.to_dlpack`` as this mode answers it: a C function no torch-function hook sees
        (red team 13), so the module attribute is replaced while the mode is entered."""
        def to_dlpack(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(tensor, torch.Tensor):
                return self.on_function(_Named(original, "__dlpack__"), None, (tensor, *args), kwargs)
            return original(tensor, *args, **kwargs)

        return to_dlpack

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
