"""Child side of the Triton static compile: a sandbox prelude that adds the ``triton_static_compile``
request to a child started WITHOUT ``TRITON_INTERPRET`` (the interpreter and the compiler cannot share
a process).

The parent first sends ``load`` (which imports the submission exactly as the run child did, so the
kernels' modules exist under the same names), then one ``triton_static_compile`` per captured launch
and target. The kernel is compiled the way ``JITFunction.run`` would compile that launch: Triton's own
binder specialises the reconstructed arguments (pointer dtypes, integers equal to 1 or divisible by
16, pointer alignment), ``_pack_args`` turns that into signature, constexprs and attributes, and
``triton.compile`` builds the target's TTGIR, PTX and cubin, written to the folder the parent named.
Everything returned here is a claim of an untrusted process: the parent runs ptxas on the PTX itself.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from tools.engine.harness.loader import import_file

OP = "triton_static_compile"
# Rationale: the CUDA caching allocator hands out blocks aligned to at least 512 bytes, so a tensor's
# pointer alignment is decided by its storage offset alone; the interpreter's CPU pointers say nothing.
_BASE_POINTER = 1 << 20


class _LaunchTensor:
    """What Triton's specialiser reads from a tensor argument: ``dtype`` and ``data_ptr()``."""

    def __init__(self, dtype: Any, pointer: int) -> None:
        self.dtype = dtype
        self._pointer = pointer

    def data_ptr(self) -> int:
        return self._pointer


def install(config: dict[str, Any]) -> None:
    import tools.engine.harness.ops as ops

    ops.op(OP)(_compile)
    # Rationale: the warm-up. A kernel of ours (tools/engine/compilers/triton_warmup.py) compiled for a CUDA
    # target before the child says it is ready pays the compiler's one-time start (LLVM's and the backend's
    # set-up) while the child starts ahead (``ResourcesTool.prepare``), not in the first compile the
    # resources tool waits for (a small kernel's first compile took 0.54 s of CPU, the next 0.05 s). Before
    # any code of the task or the submission is imported; it writes nothing but Triton's cache. Where it
    # fails (no CUDA backend in this Triton, a Triton that does not import) the first real compile pays the
    # start, or says what is wrong, as before.
    try:
        from tools.engine.compilers.triton_warmup import scale

        compile_warmup_kernel(scale)
    except Exception:  # noqa: BLE001, S110 - only time is at stake
        pass


def compile_warmup_kernel(kernel: Any) -> Any:
    """``kernel`` (``scale``'s parameters) compiled for sm_90."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    signature = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    return triton.compile(ASTSource(kernel, signature, {"BLOCK": 128}), target=GPUTarget("cuda", 90, 32))


def _jit_function(obj: Any) -> Any:
    """Unwrap autotuner/heuristics wrappers down to the JITFunction."""
    from triton.runtime.jit import JITFunction

    seen = 0
    while not isinstance(obj, JITFunction) and hasattr(obj, "fn") and seen < 8:
        obj = obj.fn
        seen += 1
    if not isinstance(obj, JITFunction):
        raise TypeError(f"{obj!r} is not a @triton.jit function")
    return obj


def _resolve(launch: dict[str, Any], src_root: str, recorded_root: str | None) -> Any:
    qualname = launch.get("qualname") or launch["kernel"]
    if "<locals>" in qualname:
        raise LookupError(f"kernel {qualname} is defined inside a function; it cannot be located by name")
    module = sys.modules.get(launch.get("module") or "")
    if module is None and launch.get("file"):
        path = Path(launch["file"])
        if recorded_root and path.is_relative_to(recorded_root):
            path = Path(src_root) / path.relative_to(recorded_root)
        if not path.is_file() or not path.resolve().is_relative_to(Path(src_root).resolve()):
            raise LookupError(f"the file of kernel {qualname} ({launch['file']}) is not in the submission")
        module = import_file(path, launch.get("module") or path.stem)
    if module is None:
        raise LookupError(f"module {launch.get('module')!r} of kernel {qualname} is not loaded")
    obj: Any = module
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return _jit_function(obj)


def _pack_args_inline(fn: Any, backend: Any, kwargs: dict[str, Any], bound: Any, specialization: Any) -> tuple:
    """Triton 3.4 has no ``JITFunction._pack_args``: the same steps inline in its ``run`` (3.5 moved
    them into that method unchanged), without the keyword checks the binder has already made."""
    from triton._utils import find_paths_if, get_iterable_path

    options = backend.parse_options(kwargs)
    sigvals = [x[0] for x in specialization]
    signature = {p.name: v for p, v in zip(fn.params, sigvals)}
    constexprs = find_paths_if(sigvals, lambda _, val: val == "constexpr")
    constexprs = {path: get_iterable_path(list(bound.values()), path) for path in constexprs}
    attrvals = [x[1] for x in specialization]
    attrs = find_paths_if(attrvals, lambda _, x: isinstance(x, str))
    attrs = {k: backend.parse_attr(get_iterable_path(attrvals, k)) for k in attrs}
    return options, signature, constexprs, attrs


def _argument(desc: dict[str, Any]) -> Any:
    import torch

    kind = desc.get("kind")
    if kind == "tensor":
        dtype = getattr(torch, desc["dtype"], None)
        if not isinstance(dtype, torch.dtype):
            raise ValueError(f"unknown tensor dtype {desc['dtype']!r}")
        size = torch.empty((), dtype=dtype).element_size()
        return _LaunchTensor(dtype, _BASE_POINTER + int(desc.get("storage_offset", 0)) * size)
    if kind == "tensor_descriptor":
        import dataclasses

        from triton.tools.tensor_descriptor import TensorDescriptor

        fields = {f.name for f in dataclasses.fields(TensorDescriptor)}
        extra = {k: desc[k] for k in ("padding", "round_f32_to_tf32") if k in desc and k in fields}
        return TensorDescriptor(_argument(desc["base"]), list(desc["shape"]), list(desc["strides"]),
                                list(desc["block_shape"]), **extra)
    if kind in ("int", "float", "bool"):
        return desc["value"]
    if kind == "none":
        return None
    raise ValueError(f"an argument of kind {kind!r} cannot be reconstructed for compilation")


def _compile(payload: dict[str, Any], state: Any) -> dict[str, Any]:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature

    launch = payload["launch"]
    target = payload["target"]
    fn = _resolve(launch, payload["src_root"], payload.get("recorded_root"))
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    constexprs = launch.get("constexprs", {})
    described = launch.get("args", {})
    for p in fn.params:
        if p.name in constexprs:
            kwargs[p.name] = constexprs[p.name]
        elif p.name in described:
            kwargs[p.name] = _argument(described[p.name])
        elif not p.has_default:
            raise ValueError(f"argument {p.name!r} of the launch was not captured")
    # Rationale: a kernel parameter named like a launch option (the fused-softmax tutorial's
    # ``num_stages: tl.constexpr``) takes that keyword itself, exactly as in JITFunction.run.
    options = {k: v for k, v in launch.get("options", {}).items() if k not in {p.name for p in fn.params}}
    gpu = GPUTarget(target["backend"], target["arch"], target.get("warp_size", 32))
    backend = make_backend(gpu)
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound, specialization, opts = binder(*args, **kwargs, **options)
    pack = getattr(fn, "_pack_args", None)
    if pack is not None:
        parsed, signature, constants, attrs = pack(backend, options, bound, specialization, opts)
    else:
        parsed, signature, constants, attrs = _pack_args_inline(fn, backend, options, bound, specialization)
    t0 = time.perf_counter()
    compiled = triton.compile(ASTSource(fn, signature, constants, attrs), target=gpu, options=parsed.__dict__)
    seconds = time.perf_counter() - t0
    out = Path(payload["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    files = {}
    for ext in ("ttgir", "ptx", "cubin", "amdgcn", "hsaco"):
        if ext in compiled.asm:
            data = compiled.asm[ext]
            path = out / f"{compiled.name}.{ext}"
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data)
            files[ext] = path.name
    meta = compiled.metadata
    result = {
        "name": compiled.name,
        "seconds": seconds,
        "shared": int(getattr(meta, "shared", 0) or 0),
        "num_warps": int(meta.num_warps),
        "num_stages": int(getattr(meta, "num_stages", 0) or 0),
        "num_ctas": int(getattr(meta, "num_ctas", 1) or 1),
        "warp_size": int(getattr(meta, "warp_size", target.get("warp_size", 32)) or 32),
        "arch": str(getattr(meta, "arch", "")),
        "ptx_version": getattr(meta, "ptx_version", None),
        "signature": {k: str(v) for k, v in signature.items()},
        "constexprs": {fn.arg_names[k[0]]: repr(v) for k, v in constants.items()},
        "divisible_by_16": sorted(fn.arg_names[k[0]] for k, v in attrs.items() if v),
        "files": files,
        "triton": triton.__version__,
        "source_hash": hashlib.sha256(fn.src.encode()).hexdigest()[:16],
    }
    (out / "compile.json").write_text(json.dumps(result, indent=2, default=str))
    return result
