"""Guard padding for the Triton CPU interpreter: out-of-bounds accesses never touch memory the
kernel does not own, so their outcome is a function of the kernel alone.

Under ``TRITON_INTERPRET=1`` a kernel's pointers are raw host addresses: an unmasked tail store
writes past its tensor into whatever the allocator put there (malloc's bookkeeping, another
tensor, a Python object), and whether that crashes the child at once, later, or not at all depends
on every allocation before it. A load past the end reads whatever is there.

Installed as a prelude (``install``), this wraps ``GridExecutor._init_args_hst`` so that each
distinct argument storage of a launch is run from a copy placed between two zero-filled guard
zones (each as large as the storage, at least ``MIN_PAD`` bytes, at most ``MAX_PAD``; 64-byte
aligned like torch's own allocations), and ``_restore_args_dev`` so that only the bytes the launch
changed in a copy are written back. An overrun within the guard zones reads zeros and writes into memory that is thrown away; the tensors outside are never
touched. The sanitizer (memcheck) reports such accesses: it takes the access out before it
happens, so while it is installed (``suspended``) the launch runs on the arguments themselves and
its regions are the storages' own extents.

Not covered: an access farther than the guard zone from its storage (the zone is as large as the
storage itself, so an index off by a whole tensor is still inside it), and launches whose padded
copies would pass ``MAX_LAUNCH_BYTES`` (run unpadded, as before).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any

MIN_PAD = 64 << 10
MAX_PAD = 64 << 20
MAX_LAUNCH_BYTES = 1 << 30
_ALIGN = 64
_KEY = "_kreview_guard_pads"
_STATE = {"suspended": 0, "installed": False}
_T: dict[str, Any] = {}  # torch and the interpreter module, imported at install (before user code)


def pad_bytes(nbytes: int) -> int:
    """The guard zone on each side of a storage of ``nbytes``."""
    pad = min(max(int(nbytes), MIN_PAD), MAX_PAD)
    return -(-pad // _ALIGN) * _ALIGN


@contextlib.contextmanager
def suspended() -> Iterator[None]:
    """Launches inside run on the arguments themselves (the sanitizer checks every access)."""
    _STATE["suspended"] += 1
    try:
        yield
    finally:
        _STATE["suspended"] -= 1


class _Padded:
    """The padded copies of one launch's argument storages, keyed by the original's address."""

    def __init__(self) -> None:
        # ptr -> (original storage, padded copy, pad, the storage's bytes before the launch)
        self.by_ptr: dict[int, tuple[Any, Any, int, Any]] = {}
        self.hst: tuple[Any, Any] = ([], {})  # the interpreter's own host arguments, for its copy to the device

    def tensor(self, t: Any) -> Any:
        storage = t.untyped_storage()
        if storage.device.type != "cpu" or t.element_size() == 0:
            return t
        ptr = int(storage.data_ptr())
        if ptr not in self.by_ptr:
            np = _T["numpy"]
            before = _bytes(storage).copy()
            pad = pad_bytes(len(before))
            # calloc'ed: the zero pages cost nothing until touched; aligned as torch aligns (64 B)
            size = pad + len(before) + pad
            raw = np.zeros(size + _ALIGN, dtype=np.uint8)
            shift = -raw.ctypes.data % _ALIGN
            buf = raw[shift:shift + size]
            buf[pad:pad + len(before)] = before
            self.by_ptr[ptr] = (storage, buf, pad, before)
        _, buf, pad, _ = self.by_ptr[ptr]
        if pad % t.element_size():
            return t
        base = _T["torch"].from_numpy(buf).view(t.dtype)
        return base.as_strided(t.size(), t.stride(), t.storage_offset() + pad // t.element_size())

    def restore(self) -> None:
        """Write back the bytes the launch changed in each copy, and only those: a kernel that also
        reaches a storage through a raw address (a pointer array holding ``x.data_ptr()``) wrote
        those bytes into the original, and they stay."""
        np = _T["numpy"]
        for storage, buf, pad, before in self.by_ptr.values():
            after = buf[pad:pad + len(before)]
            original = _bytes(storage)
            if np.array_equal(original, before):  # nothing reached the original: the copy is the result
                original[:] = after
                continue
            changed = after != before
            original[changed] = after[changed]


def _bytes(storage: Any) -> Any:
    """A storage's bytes as a numpy array sharing its memory."""
    torch = _T["torch"]
    return torch.empty(0, dtype=torch.uint8).set_(storage).numpy()


def _padded_arg(arg: Any, pads: _Padded) -> Any:
    interp = _T["interpreter"]
    if isinstance(arg, tuple):
        return interp._tuple_create(arg, [_padded_arg(a, pads) for a in arg])
    if isinstance(arg, interp.TensorDescriptor):
        return interp.TensorDescriptor(_padded_arg(arg.base, pads), arg.shape, arg.strides, arg.block_shape,
                                       arg.padding, arg.round_f32_to_tf32)
    if not hasattr(arg, "data_ptr"):
        return arg
    inner = interp._unwrap_tensor(arg)
    return interp._rewrap_tensor(pads.tensor(inner), original_tensor=arg)


@contextlib.contextmanager
def _unobserved() -> Iterator[None]:
    """No torch function or dispatch mode sees the guard's own tensor operations: an operation
    tracer (instruments/torch_ops.py) would otherwise count the copies as the program's and take
    their (freed, soon reused) addresses for storages a launch touched."""
    torch = _T["torch"]
    with torch._C.DisableTorchFunction(), _T["no_dispatch_modes"]():
        yield


def _storages_bytes(args: list[Any]) -> int:
    seen: dict[int, int] = {}
    interp = _T["interpreter"]

    def visit(a: Any) -> None:
        if isinstance(a, tuple):
            for x in a:
                visit(x)
        elif isinstance(a, interp.TensorDescriptor):
            visit(a.base)
        elif hasattr(a, "data_ptr"):
            s = interp._unwrap_tensor(a).untyped_storage()
            seen[int(s.data_ptr())] = int(s.nbytes())

    for a in args:
        visit(a)
    return sum(2 * n + 2 * pad_bytes(n) for n in seen.values())  # the padded copy and the snapshot


def install(config: dict[str, Any] | None = None) -> None:
    """Patch the interpreter's argument copies (once per process; a no-op without the interpreter)."""
    import os

    if _STATE["installed"] or os.environ.get("TRITON_INTERPRET") != "1":
        return
    import numpy
    import torch
    from torch.utils._python_dispatch import _disable_current_modes
    from triton.runtime import interpreter

    _T.update(torch=torch, numpy=numpy, interpreter=interpreter, no_dispatch_modes=_disable_current_modes)
    cls = interpreter.GridExecutor
    init_original = cls.__dict__["_init_args_hst"]
    restore_original = cls.__dict__["_restore_args_dev"]

    @functools.wraps(init_original)
    def _init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
        self.__dict__.pop(_KEY, None)
        args_hst, kwargs_hst = init_original(self, args_dev, kwargs)
        if _STATE["suspended"] or _storages_bytes([*args_hst, *kwargs_hst.values()]) > MAX_LAUNCH_BYTES:
            return args_hst, kwargs_hst
        pads = _Padded()
        pads.hst = (args_hst, kwargs_hst)
        with _unobserved():
            args_pad = [_padded_arg(a, pads) for a in args_hst]
            kwargs_pad = {k: _padded_arg(v, pads) for k, v in kwargs_hst.items()}
        self.__dict__[_KEY] = pads
        return args_pad, kwargs_pad

    @functools.wraps(restore_original)
    def _restore_args_dev(self: Any, args_dev: Any, args_hst: Any, kwargs: Any, kwargs_hst: Any) -> Any:
        pads = self.__dict__.pop(_KEY, None)
        if pads is None:
            return restore_original(self, args_dev, args_hst, kwargs, kwargs_hst)
        with _unobserved():
            pads.restore()  # each storage's own bytes back into the host arguments, the guard zones dropped
        return restore_original(self, args_dev, pads.hst[0], kwargs, pads.hst[1])

    cls._init_args_hst = _init_args_hst
    cls._restore_args_dev = _restore_args_dev
    _T["originals"] = (cls, init_original, restore_original)
    _STATE["installed"] = True


def uninstall() -> None:
    """Put the interpreter's own methods back (tests; a child keeps the guard for its life)."""
    if not _STATE["installed"]:
        return
    cls, init_original, restore_original = _T.pop("originals")
    cls._init_args_hst = init_original
    cls._restore_args_dev = restore_original
    _T.clear()
    _STATE["installed"] = False
