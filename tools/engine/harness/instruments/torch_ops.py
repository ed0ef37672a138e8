"""``torch_ops``: the torch operators a call ran, as the dispatcher saw them.

A ``TorchDispatchMode`` sees every aten operator (including those that C++ extensions call through
the dispatcher); a ``TorchFunctionMode`` names the Python API that issued it (``torch.softmax``,
``F.linear``, ``Tensor.__matmul__``). Per distinct (operator, call site): the count, the shapes and
dtypes of the largest invocation, an estimate of the work done (``cost``, in elementary operations:
multiply-adds for matrix products and convolutions, elements touched otherwise) and the kind:

- ``view``: metadata only (views, aliases, detach);
- ``alloc``: allocation or constant fill, no input data read;
- ``movement``: copies and gathers (clone, cat, pad, dtype casts);
- ``compute``: everything else.

Operators the launcher itself issues while a Triton kernel is being launched (the interpreter copies
arguments with torch, the autotuner times configurations) are counted apart, not attributed to the caller;
operators issued from the submission's own code during a launch (a grid function, an autotune hook) are
recorded as any other (tests/kernels/integrity_softmax/library_hidden_grid.py). The recorder also follows
which tensors a kernel launch touched, through later operators, so a caller can ask whether an output
derives from any launch at all (``derived_from_launch``).

Every Python kernel registered with the dispatcher after child start (``torch.library.custom_op``, the older
``torch.library.Library(...).impl``, fallbacks, any key) is wrapped at registration (``open_library_kernels``)
so that it runs with the dispatch mode of the recorder handling the call entered again (both modes are popped
while an operator runs): its operators are recorded, and the submission's operator itself is not, and no
operator name outside torch's own namespaces says what it does (tests/kernels/integrity_softmax/
library_custom_op_body.py, library_impl_body.py, good_custom_op.py, good_library_impl.py).

A dispatch mode belongs to the thread that entered it. So every thread started in the child through
``_thread`` (``threading``, ``concurrent.futures`` and ``asyncio.to_thread`` all start theirs there) runs
under a mode that hands its operators to the recorder active at that moment, if any (``follow_threads``,
installed at child start): ``torch.softmax`` on a helper thread is seen as the caller's
(tests/kernels/integrity_softmax/library_hidden_thread.py). Threads a native library starts are not seen;
the core operators withheld at the dispatcher cover those (tools/engine/harness/withheld_ops.py).
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
from collections.abc import Iterator
from typing import Any, Self

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode_stack
from torch.utils._pytree import tree_flatten

import tools.engine.harness.frames as frames
import tools.engine.harness.own_code as own_code
from tools.engine.harness import interpreter_launch
from tools.engine.harness.instruments import instrument
from tools.engine.harness.instruments.triton_launches import launch_tensors

_MAX_DISTINCT = 200
_SELF = frozenset({__file__})

# Rationale: a matrix product's work is M*N*K multiply-adds, far more than the elements it touches;
# without this the share of work a library call does would be understated by a factor K.
_MATMUL = {"mm", "addmm", "_addmm_activation", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot",
           "matmul", "linear", "_scaled_mm", "einsum", "tensordot", "inner", "bilinear"}
_CONV = {"convolution", "_convolution", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
         "conv_transpose3d", "mkldnn_convolution", "_slow_conv2d_forward", "slow_conv3d_forward",
         "_conv_depthwise2d", "cudnn_convolution", "cudnn_convolution_transpose", "slow_conv_transpose2d",
         "slow_conv_transpose3d", "slow_conv_dilated2d", "slow_conv_dilated3d", "miopen_convolution"}
# Rationale: these read no input values (or only metadata), so they are glue whatever the task is.
_VIEW = {"alias", "detach", "lift_fresh", "_unsafe_view", "set_", "resize_", "as_strided", "_reshape_alias",
         "view", "expand", "t", "transpose", "permute", "squeeze", "unsqueeze", "select", "slice", "split",
         "split_with_sizes", "chunk", "unbind", "narrow", "unfold", "diagonal", "view_as_real",
         "view_as_complex", "_conj", "_neg_view", "real", "imag", "movedim", "unflatten", "flatten",
         "reshape", "_nested_view_from_buffer", "_local_scalar_dense", "sym_size", "sym_stride",
         "sym_numel", "sym_storage_offset", "is_same_size", "_has_compatible_shallow_copy_type",
         "record_stream", "_resize_output_", "resize_as_",
         # Rationale: metadata queries and DLPack hand-offs (torch <-> JAX/NumPy interop) read no
         # element values: they are plumbing, whatever the tensor's size.
         "is_pinned", "_is_zerotensor", "is_conj", "is_neg", "is_coalesced", "is_set_to", "is_complex",
         "is_floating_point", "is_signed", "is_inference", "is_contiguous", "resolve_conj", "resolve_neg",
         "_to_dlpack", "to_dlpack", "_from_dlpack", "from_dlpack", "__dlpack__", "__dlpack_device__"}
_ALLOC_PREFIX = ("empty", "new_empty", "new_zeros", "new_ones", "new_full", "zeros", "ones", "full",
                 "scalar_tensor", "arange", "linspace", "logspace", "eye", "fill", "zero", "rand", "randn",
                 "randint", "randperm", "normal", "uniform", "bernoulli", "random", "exponential",
                 "cauchy", "log_normal", "geometric", "tril_indices", "triu_indices")
_MOVEMENT = {"clone", "copy", "_to_copy", "_copy_from", "_copy_from_and_resize", "cat", "stack", "hstack",
             "vstack", "constant_pad_nd", "reflection_pad1d", "reflection_pad2d", "reflection_pad3d",
             "replication_pad1d", "replication_pad2d", "replication_pad3d", "flip", "roll", "repeat",
             "tile", "index_select", "gather", "index", "_unsafe_index", "masked_select", "take",
             "narrow_copy", "select_scatter", "slice_scatter", "as_strided_scatter", "unfold_copy",
             "split_with_sizes_copy", "expand_copy", "permute_copy", "view_copy", "transpose_copy",
             "t_copy", "_reshape_copy", "contiguous", "to", "tril", "triu", "index_put", "scatter",
             "masked_fill", "where", "_pin_memory", "pad"}


def base_name(name: str) -> str:
    """``aten::_softmax.default`` / ``_softmax`` / ``add_`` -> a family name (``softmax``, ``add``)."""
    name = name.split("::")[-1].split(".")[0]
    if name.endswith("_") and not name.endswith("__"):
        name = name[:-1]
    name = name.lstrip("_")
    for prefix in ("native_", "cudnn_", "miopen_", "mkldnn_"):
        name = name.removeprefix(prefix)
    for suffix in ("_forward", "_out", "_impl_index", "_legit", "_legit_no_training", "_functional"):
        name = name.removesuffix(suffix)
    if name in _MATMUL or name.lstrip("_") in _MATMUL:
        return "matmul"
    if name in _CONV or (name.startswith("conv") and not name.startswith("convert")):
        return "convolution"
    if "scaled_dot_product" in name:
        return "scaled_dot_product_attention"
    return name


TORCH_NAMESPACES = ("aten", "prims")
"""The operator namespaces whose names say what an operator does (torch's own)."""


def _torch_namespace(func: Any) -> bool:
    try:
        return str(func.name()).partition("::")[0] in TORCH_NAMESPACES
    except (AttributeError, RuntimeError):
        return True


def kind_of(packet: str, func: Any = None) -> str:
    namespace, sep, _ = packet.partition("::")
    if sep and namespace not in TORCH_NAMESPACES:
        # Rationale: only torch's own operator names say what they do; any other namespace's name is its
        # author's choice (``mylib::empty_rows`` computed a softmax, red team 4): it is compute, at its cost
        return "compute"
    plain = packet.split("::")[-1].split(".")[0]
    stem = plain.rstrip("_") if not plain.endswith("__") else plain
    if plain in _VIEW or stem in _VIEW or (func is not None and getattr(func, "is_view", False)):
        return "view"
    if stem.lstrip("_").startswith(_ALLOC_PREFIX):
        return "alloc"
    if stem in _MOVEMENT or stem.lstrip("_") in _MOVEMENT:
        return "movement"
    return "compute"


def _tensors(value: Any) -> list[torch.Tensor]:
    leaves, _ = tree_flatten(value)
    return [x for x in leaves if isinstance(x, torch.Tensor)]


def _prod(xs: Any) -> int:
    return int(math.prod(int(x) for x in xs)) if xs else 1


def op_cost(packet: str, args: tuple[Any, ...], out: Any) -> float:
    """Elementary operations one invocation performs (see the module docstring)."""
    family = base_name(packet)
    ins = [a for a in args if isinstance(a, torch.Tensor)]
    outs = _tensors(out)
    try:
        if family == "matmul" and len(ins) >= 2:
            a, b = ins[-2], ins[-1]
            if a.dim() == 1 and b.dim() == 1:
                return float(a.numel())
            k = int(a.shape[-1])
            return float(max((o.numel() for o in outs), default=0) * k)
        if family == "convolution" and len(ins) >= 2:
            x, w = ins[0], ins[1]
            transposed = bool(args[6]) if len(args) > 6 and isinstance(args[6], bool) else False
            base = x.numel() if transposed else max((o.numel() for o in outs), default=0)
            return float(base * _prod(w.shape[1:]))
        if family == "scaled_dot_product_attention" and len(ins) >= 3:
            q, k, v = ins[0], ins[1], ins[2]
            rows = q.numel() // max(int(q.shape[-1]), 1)
            return float(rows * int(k.shape[-2]) * (int(q.shape[-1]) + int(v.shape[-1])))
    except (IndexError, RuntimeError, TypeError, ValueError):
        pass
    sizes = [t.numel() for t in ins + outs]
    return float(max(sizes, default=0))


def _spec(t: torch.Tensor) -> dict[str, Any]:
    return {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")}


def _api_name(func: Any) -> str:
    name = getattr(func, "__name__", None) or str(func)
    qual = getattr(func, "__qualname__", "") or ""
    module = getattr(func, "__module__", "") or ""
    if qual.startswith(("TensorBase.", "Tensor.", "_TensorBase.")) or module == "torch._tensor":
        return f"Tensor.{name}"
    if module in ("torch._C._nn", "torch.nn.functional"):
        return f"F.{name}"
    if module in ("torch", "torch._C._VariableFunctions", "torch.functional") or not module:
        return f"torch.{name}"
    return f"{module.removeprefix('torch._C.')}.{name}"


def _storage_key(t: torch.Tensor) -> int | None:
    try:
        return int(t.untyped_storage().data_ptr())
    except (RuntimeError, NotImplementedError, TypeError):
        return None


_PYTHON_KEY = torch._C.DispatchKey.Python
# Rationale: an operator the interpreter issues during a launch sits some tens of library frames inside the
# launching line; the walk must reach that line, or the launcher's own copies would be charged to the user
_LAUNCH_DEPTH = 1000
_ACTIVE: list[OpRecorder] = []
"""The recorders entered, innermost last: a helper thread's operators go to the innermost."""
HANDED_FUNCTIONS: list[Any] = []
"""Function-level observers a helper thread's torch functions are handed to, innermost last: objects with
``on_function(func, types, args, kwargs)`` that call ``func`` (tools/engine/harness/withheld_exports.py)."""


# Rationale: an operator's kernel runs with both trace modes popped, so what a Python kernel the submission
# registers computes was never traced (red team 3: a custom_op's body; then the older Library.impl API; then 13
# ways around opening the kernel the dispatcher would pick by name, key and device, red team 4). Every Python
# kernel registered from child start on, by anything but the harness, is wrapped where all registrations end
# (``torch._C._DispatchModule.impl`` and ``.fallback``): whichever kernel the dispatcher runs, for whatever key,
# name or callable, runs with the recorder handling the call entered again.
_DISPATCHING = threading.local()  # per thread: the recorders now handling an operator call, innermost last


def _handling() -> list[Any]:
    stack = getattr(_DISPATCHING, "stack", None)
    if stack is None:
        stack = _DISPATCHING.stack = []
    return stack


def _opened(kernel: Any) -> Any:
    """``kernel`` as the dispatcher will call it: with the dispatch mode of the recorder handling the call (if
    any, and if it is not on this thread's mode stack already) entered again while it runs."""
    def opened(*args: Any, **kwargs: Any) -> Any:
        stack = getattr(_DISPATCHING, "stack", None)
        recorder = stack[-1] if stack else None
        mode = getattr(recorder, "_mode", None)
        if mode is None or any(m is mode for m in _get_current_dispatch_mode_stack()):
            return kernel(*args, **kwargs)
        recorder._opened += 1
        with mode:
            return kernel(*args, **kwargs)

    opened._kreview_opened = kernel  # type: ignore[attr-defined]
    return opened


def _harness_registers(frame: Any) -> bool:
    """Whether the registration at ``frame`` is the harness's own (withheld_ops.py's kernels): a frame running
    the harness's own code objects, not merely a file under the harness's name (own_code.py)."""
    who, found = frames.outward(frame, skip=_SELF)
    return who == "harness" and found is not None and own_code.is_own_code(found.f_code)


def open_library_kernels() -> None:
    """Wrap every Python kernel registered with the dispatcher from now on (called once at child start, before
    any code of the task or the submission runs) so that it runs traced (``_opened``). Registrations the
    harness's own code makes stay as they are; ``torch.library.fallthrough_kernel`` is a marker the dispatcher
    compares by identity, never called, and passes through unwrapped."""
    import torch.library as library

    module = getattr(torch._C, "_DispatchModule", None)
    if module is None:
        return
    fallthrough = getattr(library, "fallthrough_kernel", None)

    def wrap(original: Any, at: int) -> Any:
        def register(self: Any, *args: Any, **kwargs: Any) -> Any:
            args = list(args)
            func = args[at] if len(args) > at else kwargs.get("func")
            if callable(func) and func is not fallthrough and not hasattr(func, "_kreview_opened") \
                    and not _harness_registers(sys._getframe(1)):
                if len(args) > at:
                    args[at] = _opened(func)
                else:
                    kwargs["func"] = _opened(func)
            return original(self, *args, **kwargs)

        register._kreview_opening = True  # type: ignore[attr-defined]
        return register

    # impl(name, dispatch, func, with_keyset=False); fallback(dispatch, func, with_keyset=False)
    for name, at in (("impl", 2), ("fallback", 1)):
        original = getattr(module, name, None)
        if original is not None and not getattr(original, "_kreview_opening", False):
            setattr(module, name, wrap(original, at))


def _launching_frame(frame: Any) -> Any:
    """The user's or the harness's frame a launch (or an operator during one) comes from (frames.outward)."""
    return frames.outward(frame, skip=_SELF, depth=_LAUNCH_DEPTH)[1]


class OpRecorder:
    """Records operators while active (``with recorder:``); ``data`` is JSON-able."""

    def __init__(self, root: str | None = None, *, follow_launches: bool = True) -> None:
        self.root = root
        self.follow_launches = follow_launches
        self.data: dict[str, Any] = {"ops": [], "total": 0, "inside_launch": 0, "harness": 0, "launches": 0,
                                     "truncated": False}
        self._index: dict[tuple[str, str, str, int], dict[str, Any]] = {}
        self._api: list[str] = []
        self._launch_depth = 0
        self._launchers: list[Any] = []
        """The frames that launched the kernels now being launched (the innermost user frame outside each)."""
        self._touched: set[int] = set()
        self._opened = 0  # Python kernels of the dispatcher run with this recorder entered again (_opened)
        self._stack = contextlib.ExitStack()
        self._mode: _Dispatch | None = None

    # -- the two modes -----------------------------------------------------------------------
    def _on_function(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if torch._C._dispatch_tls_is_dispatch_key_excluded(_PYTHON_KEY):
            self._blinded(func)
        self._api.append(_api_name(func))
        try:
            return func(*args, **(kwargs or {}))
        finally:
            self._api.pop()

    def _blinded(self, func: Any) -> None:
        """A torch function the submission's own code calls while the dispatch modes are switched off
        (``torch._C._DisableTorchDispatch`` and its kin): the operators it runs never reach the trace."""
        who, site = frames.origin(sys._getframe(3), self.root, skip=_SELF)
        if who != "user" or len(self.data.setdefault("blinded", [])) >= 20:
            return
        self.data["blinded"].append({"api": _api_name(func), "site": site})

    def _on_dispatch(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        handling = _handling()
        handling.append(self)
        opened = self._opened
        try:
            out = func(*args, **(kwargs or {}))
        finally:
            handling.pop()
        if self._opened > opened and not _torch_namespace(func):
            # the submission's own operator, whose Python kernel ran with this mode entered again (_opened): its
            # operators are recorded as any other, the operator itself is not, whatever its name says
            # (``mylib::softmax`` wrapping a launch is no library softmax)
            self.data["custom_ops"] = self.data.get("custom_ops", 0) + 1
            return out
        try:
            self._record(func, args, kwargs or {}, out)
        except Exception as exc:  # noqa: BLE001 - observing must never break the call
            self.data.setdefault("record_errors", []).append(repr(exc)[:200])
        return out

    def _record(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
        self.data["total"] += 1
        flat_in = _tensors((args, kwargs))
        if self._touched and any(_storage_key(t) in self._touched for t in flat_in):
            for t in _tensors(out):
                key = _storage_key(t)
                if key is not None:
                    self._touched.add(key)
        if self.by_launcher(sys._getframe(2)):
            # the launcher's own work (argument copies, autotuning), not the submission's
            self.data["inside_launch"] += 1
            return
        who, site = frames.origin(sys._getframe(2), self.root, skip=_SELF)
        if who == "harness":
            self.data["harness"] += 1  # the harness's own glue (cloning inputs), not the program's
            return
        packet = str(func.name()) if hasattr(func, "name") else str(func)
        packet = packet.split(".")[0]
        kind = kind_of(packet, func)
        cost = op_cost(packet, tuple(args), out) if kind in ("compute", "movement") else 0.0
        api = self._api[0] if self._api else None
        key = (packet, api or "", str(site["file"]) if site else "", int(site["line"]) if site else 0)  # type: ignore[arg-type]
        entry = self._index.get(key)
        if entry is None:
            if len(self._index) >= _MAX_DISTINCT:
                self.data["truncated"] = True
                return
            entry = {"op": packet, "family": base_name(packet), "kind": kind, "api": api, "site": site,
                     "count": 0, "cost": 0.0, "largest": None, "largest_numel": -1}
            self._index[key] = entry
            self.data["ops"].append(entry)
        entry["count"] += 1
        entry["cost"] += cost
        numel = max((t.numel() for t in flat_in), default=0)
        if numel > entry["largest_numel"]:
            entry["largest_numel"] = numel
            entry["largest"] = {"args": [_spec(t) for t in flat_in[:4]],
                                "out": [_spec(t) for t in _tensors(out)[:2]]}

    # -- kernel launches ---------------------------------------------------------------------
    def _wrap_launcher(self, original: Any) -> Any:
        recorder = self

        def run(self_: Any, *args: Any, grid: Any = None, warmup: Any = False, **kwargs: Any) -> Any:
            if not warmup:
                recorder.data["launches"] += 1
                # a tensor argument, a TensorDescriptor's base, the tensors of a tuple argument
                for value in list(args) + list(kwargs.values()):
                    for t in launch_tensors(value):
                        key = _storage_key(t)
                        if key is not None:
                            recorder._touched.add(key)
            recorder._launch_depth += 1
            recorder._launchers.append(_launching_frame(sys._getframe(1)))
            try:
                return original(self_, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                recorder._launch_depth -= 1
                recorder._launchers.pop()

        return run

    def _patch_launchers(self) -> None:
        if not self.follow_launches:
            return
        try:
            from triton.runtime import interpreter, jit
        except ImportError:
            return
        original = jit.JITFunction.run
        jit.JITFunction.run = self._wrap_launcher(original)
        self._stack.callback(setattr, jit.JITFunction, "run", original)
        self._stack.callback(interpreter_launch.wrap_run(interpreter, self._wrap_launcher))

    def by_launcher(self, frame: Any) -> bool:
        """Whether code at ``frame`` runs on behalf of a kernel launch now under way (the interpreter copying
        arguments, the autotuner timing), rather than the submission's own code run during it."""
        return bool(self._launch_depth) and _launching_frame(frame) in self._launchers

    def derived_from_launch(self, value: Any) -> bool | None:
        """Whether every tensor in ``value`` shares storage with something a launch touched
        (directly or through later operators). None when nothing was launched."""
        if not self.data["launches"]:
            return None
        keys = [_storage_key(t) for t in _tensors(value)]
        return bool(keys) and all(k in self._touched for k in keys)

    def __enter__(self) -> Self:
        self._patch_launchers()
        self._stack.enter_context(_Function(self))
        self._mode = _Dispatch(self)
        self._stack.enter_context(self._mode)
        _ACTIVE.append(self)
        self._stack.callback(_ACTIVE.remove, self)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()
        for entry in self.data["ops"]:
            entry.pop("largest_numel", None)
            entry["cost"] = float(entry["cost"])


class _Dispatch(TorchDispatchMode):
    def __init__(self, recorder: OpRecorder) -> None:
        super().__init__()
        self.recorder = recorder

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # Rationale: the default wraps __torch_dispatch__ in dynamo.disable, whose first use imports
        # torch._dynamo (1-5 s per child); this recorder never runs under torch.compile's tracing.
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return self.recorder._on_dispatch(func, types, args, kwargs)


class _Handed(TorchDispatchMode):
    """A helper thread's mode: its operators go to the innermost active recorder (none: they just run)."""

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        recorder = _ACTIVE[-1] if _ACTIVE else None
        if recorder is None:
            return func(*args, **(kwargs or {}))
        return recorder._on_dispatch(func, types, args, kwargs)


class _HandedFunction(TorchFunctionMode):
    """A helper thread's function mode: its torch functions (``Tensor.numpy`` is one, and no operator) go
    to the innermost function-level observer (none: they just run)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        observer = HANDED_FUNCTIONS[-1] if HANDED_FUNCTIONS else None
        if observer is None:
            return func(*args, **(kwargs or {}))
        return observer.on_function(func, types, args, kwargs)


def _handed(function: Any) -> Any:
    def run(*args: Any, **kwargs: Any) -> Any:
        with _Handed(), _HandedFunction():
            return function(*args, **kwargs)

    return run


def follow_threads() -> None:
    """Put every thread started from now on in this process under ``_Handed`` and ``_HandedFunction``
    (called once at child start,
    before any code of the task or the submission runs): ``_thread``'s starters, and ``threading``'s own
    references to them."""
    import _thread

    for owner, name in ((_thread, "start_new_thread"), (_thread, "start_new"), (_thread, "start_joinable_thread"),
                        (threading, "_start_new_thread"), (threading, "_start_joinable_thread")):
        original = getattr(owner, name, None)
        if original is None or getattr(original, "_kreview_handed", False):
            continue

        def start(function: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            return _original(_handed(function), *args, **kwargs)

        start._kreview_handed = True  # type: ignore[attr-defined]
        start.__name__, start.__doc__ = getattr(original, "__name__", name), getattr(original, "__doc__", None)
        setattr(owner, name, start)


class _Function(TorchFunctionMode):
    def __init__(self, recorder: OpRecorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return self.recorder._on_function(func, types, args, kwargs)


@instrument("torch_ops")
@contextlib.contextmanager
def torch_ops(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    recorder = OpRecorder(payload.get("user_root"))
    with recorder:
        yield recorder.data
