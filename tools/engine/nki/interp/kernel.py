"""Running a kernel: ``nki.jit``, ``nki.simulate_kernel``/``nki.simulate``, SPMD grids, and how tensors
cross between the caller (torch or NumPy) and the kernel (HBM tensors).

A jitted kernel called with torch tensors gets NumPy copies as HBM tensors and returns torch tensors
(same dtype, the first torch argument's device); called with NumPy arrays it returns NumPy arrays.
Arguments are immutable unless annotated ``nt.mutable_tensor``; a mutable argument's new values are
copied back into the caller's tensor when the kernel returns.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import math
import types
from typing import Any

import ml_dtypes
import numpy as np

import tools.engine.nki.interp.context as context
import tools.engine.nki.interp.dtypes as D
from tools.engine.nki.interp.errors import NkiUnsupported
from tools.engine.nki.interp.language import kernel_range
from tools.engine.nki.interp.recorder import RECORDER, violation
from tools.engine.nki.interp.tensor import Storage, Tile, hbm
from tools.engine.nki.version import PAGES

_TORCH_TO_ML = {"bfloat16": ml_dtypes.bfloat16, "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
                "float8_e5m2": ml_dtypes.float8_e5m2}


def _torch() -> Any:
    import torch

    return torch


def _is_torch(x: Any) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "detach") and hasattr(x, "dtype")


def torch_to_numpy(t: Any) -> np.ndarray:
    torch = _torch()
    t = t.detach().to("cpu").contiguous()
    name = str(t.dtype).removeprefix("torch.")
    if name in _TORCH_TO_ML:
        bits = t.view(torch.uint8 if t.element_size() == 1 else torch.int16).numpy()
        return bits.view(_TORCH_TO_ML[name]).copy()
    if name == "float64":
        return t.to(torch.float32).numpy().copy()
    if name == "int64":
        return t.to(torch.int32).numpy().copy()
    return t.numpy().copy()


def numpy_to_torch(a: np.ndarray, like: Any) -> Any:
    torch = _torch()
    a = np.ascontiguousarray(a)
    for tname, ml in _TORCH_TO_ML.items():
        if a.dtype == np.dtype(ml):
            bits = a.view(np.uint8 if a.dtype.itemsize == 1 else np.int16)
            out = torch.from_numpy(bits.copy()).view(getattr(torch, tname))
            break
    else:
        if a.dtype == np.dtype(ml_dtypes.float8_e4m3):
            out = torch.from_numpy(a.astype(np.float32))
        else:
            out = torch.from_numpy(a.copy())
    return out.to(like.device) if like is not None else out


def _annotations(fn: Any) -> dict[str, str]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return {}
    out = {}
    for name, p in sig.parameters.items():
        ann = p.annotation
        text = ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))
        out[name] = str(text)
    return out


def _with_kernel_range(fn: Any) -> Any:
    """The kernel function with Python ``range`` replaced by the tracked sequential loop."""
    if not isinstance(fn, types.FunctionType):
        return fn
    g = dict(fn.__globals__)
    g["range"] = kernel_range
    out = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    out.__kwdefaults__ = fn.__kwdefaults__
    out.__dict__.update(fn.__dict__)
    return out


class Kernel:
    """What ``@nki.jit`` returns: call it (or ``kernel[grid](...)``) like the real one."""

    def __init__(self, fn: Any, mode: str = "auto", **options: Any) -> None:
        self.fn = fn
        self.mode = mode
        self.options = options
        functools.update_wrapper(self, fn)

    def __getitem__(self, grid: Any) -> Any:
        dims = grid if isinstance(grid, tuple) else (grid,)
        if not all(isinstance(d, (int, np.integer)) for d in dims):
            raise NkiUnsupported("SPMD grids with nl.nc / nl.spmd_dim dimensions")
        return functools.partial(self._launch, tuple(int(d) for d in dims))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._launch((), *args, **kwargs)

    def _launch(self, grid: tuple[int, ...], *args: Any, **kwargs: Any) -> Any:
        outer = context.active()
        if outer is not None:  # a kernel called from a kernel runs inline
            if grid:
                raise violation("err_nested_kernel_with_spmd_grid",
                                "Calling kernel with spmd grid inside another kernel is not supported",
                                documented=True, kind="nested_spmd")
            return self.fn(*args, **kwargs)
        return run_kernel(self.fn, grid, args, kwargs)


def jit(func: Any = None, mode: str = "auto", **kwargs: Any) -> Any:
    if func is None:
        return lambda f: Kernel(f, mode, **kwargs)
    if isinstance(func, Kernel):
        return func
    return Kernel(func, mode, **kwargs)


baremetal = jit
trace = jit


def benchmark(kernel: Any = None, **kwargs: Any) -> Any:
    raise NkiUnsupported("nki.benchmark (hardware latency needs a Neuron device)")


def profile(func: Any = None, **kwargs: Any) -> Any:
    raise NkiUnsupported("nki.profile (needs a Neuron device)")


def simulate_kernel(kernel: Any, *args: Any, **kwargs: Any) -> Any:
    fn = kernel.fn if isinstance(kernel, Kernel) else kernel
    return run_kernel(fn, (), args, kwargs)


def simulate(kernel: Any) -> Any:
    return functools.partial(simulate_kernel, kernel)


# -- one launch ------------------------------------------------------------------------------------
class _Arg:
    def __init__(self, original: Any, tile: Tile) -> None:
        self.original, self.tile = original, tile


def _convert(value: Any, name: str, mutable: bool, made: list[_Arg]) -> Any:
    if _is_torch(value) or isinstance(value, np.ndarray):
        arr = torch_to_numpy(value) if _is_torch(value) else np.array(value, copy=True)
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        if arr.dtype == np.int64:
            arr = arr.astype(np.int32)
        D.as_dtype(arr.dtype)
        st = Storage(arr.shape, arr.dtype, hbm, name=name, data=arr)
        st.param = "mutable" if mutable else "immutable"
        tile = Tile(st)
        made.append(_Arg(value, tile))
        return tile
    if isinstance(value, (list, tuple)):
        out = [_convert(v, f"{name}[{i}]", mutable, made) for i, v in enumerate(value)]
        return type(value)(out) if isinstance(value, tuple) else out
    if isinstance(value, dict):
        return {k: _convert(v, f"{name}.{k}", mutable, made) for k, v in value.items()}
    return value


def _collect(value: Any, out: list[Tile]) -> None:
    if isinstance(value, Tile):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _collect(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _collect(v, out)


def _returned(value: Any, made: list[_Arg], like: Any, params: set[int]) -> Any:
    if isinstance(value, Tile):
        if value.store.space != "hbm":
            raise violation("kernel_output_not_hbm",
                            f"kernel returns {value.describe()}: the outputs of a top-level kernel must be HBM "
                            "tensors (store on-chip tiles to an nl.shared_hbm tensor)", documented=False,
                            kind="output_not_hbm", doc=PAGES["known_issues"])
        st = value.store
        if id(st) not in params:
            _check_written(value)
        arr = value.read(what="kernel output")[0]
        return numpy_to_torch(arr, like) if like is not None else arr
    if isinstance(value, (list, tuple)):
        out = [_returned(v, made, like, params) for v in value]
        return type(value)(out) if isinstance(value, tuple) else out
    if isinstance(value, dict):
        return {k: _returned(v, made, like, params) for k, v in value.items()}
    return value


def _check_written(tile: Tile) -> None:
    st = tile.store
    written = st.written if tile.coords is None else st.written[tile.coords]
    if written.size == 0:
        return  # an empty output (a zero-length dimension) has nothing to write
    if not written.any():
        raise violation("err_tensor_output_not_written_to",
                        f"output tensor {st.describe()} was never written to (a loop that writes it may never "
                        "run, e.g. a trip count that evaluates to 0)", documented=False, kind="output_not_written",
                        tensor=st.name)
    if not written.all():
        missing = int((~written).sum())
        first = [int(i) for i in np.argwhere(~written)[0]]
        RECORDER.event("unwritten_output",
                       f"{missing} of {written.size} element(s) of output {st.describe()} are never written "
                       f"(first at index {first}); on hardware they hold garbage",
                       tensor=st.name, count=missing, total=int(written.size), first=first,
                       **({"where": st.where} if st.where else {}))


def run_kernel(fn: Any, grid: tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run ``fn`` as a top-level kernel over ``grid`` (SPMD programs run one after another)."""
    ann = _annotations(fn)
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        bound = None
    made: list[_Arg] = []
    if bound is not None:
        conv_args = {k: _convert(v, k, ann.get(k, "").endswith("mutable_tensor"), made)
                     for k, v in bound.arguments.items()}
        call_args: tuple[Any, ...] = ()
        call_kwargs = conv_args
    else:
        call_args = tuple(_convert(v, f"arg{i}", False, made) for i, v in enumerate(args))
        call_kwargs = {k: _convert(v, k, False, made) for k, v in kwargs.items()}
    like = next((a.original for a in made if _is_torch(a.original)), None)
    code = getattr(fn, "__code__", None)
    name = getattr(fn, "__name__", "kernel")
    run = context.KernelRun(name, code.co_filename if code else "<unknown>", code.co_firstlineno if code else 0,
                            grid=grid)
    launch = {"kernel": name, "file": run.file, "line": run.line, "grid": list(grid),
              "args": [{"name": a.tile.name, "shape": list(a.tile.shape), "dtype": str(a.tile.dtype)} for a in made],
              "backend": "interpreter"}
    RECORDER.launches.append(launch)
    body = _with_kernel_range(fn)
    context.enter(run)
    try:
        for a in made:
            run.allocate(a.tile.store)
        result = None
        if grid:
            frame = context.LoopFrame(kind="spmd", file=run.file, line=run.line, trips=math.prod(grid), scoped=False)
            run.push(frame)
            run.spmd_frame = frame
            try:
                for i, pid in enumerate(itertools.product(*(range(g) for g in grid))):
                    run.begin_iteration(frame, i)
                    run.program_id = pid
                    run.shared_index = 0
                    result = body(*call_args, **call_kwargs)
            finally:
                run.end_loop(frame)
        else:
            result = body(*call_args, **call_kwargs)
        params = {id(a.tile.store) for a in made}
        out = _returned(result, made, like, params)
    finally:
        context.leave(run)
    for a in made:
        if a.tile.store.param == "mutable" and a.tile.store.written.any():
            _write_back(a)
    launch["done"] = True
    return out


def _write_back(arg: _Arg) -> None:
    arr = arg.tile.store.data
    if _is_torch(arg.original):
        src = numpy_to_torch(arr, arg.original)
        arg.original.copy_(src.to(arg.original.dtype))
    elif isinstance(arg.original, np.ndarray):
        arg.original[...] = arr
