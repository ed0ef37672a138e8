"""Prelude: a virtual device for the review's target GPU, so Triton code written for a GPU runs as
written under the CPU interpreter (TRITON_INTERPRET=1).

Without a GPU, Triton has no active driver and every query a tutorial-style kernel makes at import
or launch time (``triton.runtime.driver.active.get_active_torch_device()``, ``get_current_target()``,
``utils.get_device_properties(...)``, ``kernel.warmup(...).n_regs``, a multi-config
``@triton.autotune`` benchmarking with the driver) raises "0 active drivers". Installed in the run
children (and the static-compile child), this prelude answers them as the target GPU would:

- ``driver.active`` is a :class:`VirtualDriver` for the target (``[target] gpu``/``arch`` of
  kreview.toml, else the default of virtual_gpus.yaml, an H100): ``get_current_target()`` is its
  ``GPUTarget("cuda", 90, 32)``; ``utils.get_device_properties`` returns its SM count, opt-in shared
  memory per block, registers per block, warp size and clocks (virtual_gpus.yaml + gpu_limits.yaml).
- The device is where the review's tensors live: ``get_active_torch_device()`` returns the torch
  device the CUDA shim maps ``"cuda"`` to (the CPU), so ``device=DEVICE`` and ``x.device == DEVICE``
  hold exactly as on the GPU. Tensors on it answer ``is_cuda`` True and ``torch.cuda.is_available()``
  is True, ``current_device()`` 0, ``get_device_properties``/``get_device_capability``/
  ``get_device_name`` describe the target: code that checks for a GPU takes the GPU path, the one
  the review is about; ``with torch.cuda.device(...)`` selects it (a no-op: it is the only device).
  APIs that need a real GPU (streams, events, graphs) still fail, and that
  failure is reported as unverified (needs a GPU), never as the kernel's fault.
- ``kernel.warmup(...)`` compiles the kernel for the target with the real Triton compiler in a
  subprocess without the interpreter (tools/engine/harness/virtual_compile.py: TTGIR/PTX, then ptxas -v)
  and returns an object with ``n_regs``, ``n_spills``, ``metadata.shared``/``num_warps`` from that
  compile; launching it (``kernel[grid](...)``) runs the interpreter with the warmed-up constexprs.
- Where the interpreter itself differs from compiled Triton on code that compiles (a float argument,
  an alias of a ``tl`` builtin), tools/engine/harness/interpreter_gaps.py makes it do what the compiler does.
- ``torch.compile`` returns its function or module unchanged: it runs eagerly (Dynamo cannot trace
  the interpreter), so the Triton kernel inside is what is reviewed.
- ``@triton.autotune`` with several configs runs ONE config, chosen deterministically (the first
  listed that the autotuner does not prune, or the one the ``virtual_gpu`` instrument forces:
  tools/autotune reviews every config that
  way); nothing is benchmarked.

Every answer is logged (``LOG``) and reported by the ``virtual_gpu`` instrument, so the evidence says
which answers came from the virtual device.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tools.engine.harness import interpreter_fixes, interpreter_gaps, interpreter_launch, interpreter_speed
from tools.engine.harness.instruments.triton_launches import _describe_arg

_TABLE = Path(__file__).with_name("virtual_gpus.yaml")
_LIMITS = Path(__file__).resolve().parents[1] / "gpu_limits.yaml"
PRELUDE = "tools.engine.harness.virtual_gpu"

#: what the virtual device answered, in order, one entry per distinct (query, answer)
LOG: list[dict[str, Any]] = []
#: autotuned kernels seen: qualname -> {"configs": [...], "chosen": [index, ...]}
AUTOTUNE: dict[str, dict[str, Any]] = {}
#: qualname -> config index to run (set per call by the ``virtual_gpu`` instrument)
FORCE: dict[str, int] = {}
#: qualname -> the config an unforced launch runs: the first listed the autotuner does not prune
DEFAULT: dict[str, int] = {}
SPEC: dict[str, Any] = {}
_COMPILED: dict[str, dict[str, Any]] = {}


# -- parent side: which GPU the virtual device is ----------------------------------------------
@functools.cache
def _tables() -> tuple[dict[str, Any], dict[str, Any]]:
    import yaml

    return yaml.safe_load(_TABLE.read_text()), yaml.safe_load(_LIMITS.read_text())["arches"]


def known_gpus() -> list[str]:
    """The GPUs a review can target (virtual_gpus.yaml)."""
    return list(_tables()[0]["gpus"])


def spec_for(gpu: str | None, arch: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
    """The virtual device for a review target: a GPU of virtual_gpus.yaml named by ``gpu``, else the
    first one of the first declared ``arch``, else the table's default. Pure; runs in the parent."""
    import re

    table, limits = _tables()
    gpus: dict[str, dict[str, Any]] = table["gpus"]
    how = f"default virtual GPU ({table['default']}; set [target] gpu or arch in kreview.toml to change it)"
    key = None
    if gpu:
        want = re.sub(r"[^a-z0-9]", "", gpu.lower())
        key = next((k for k, g in gpus.items() if re.sub(r"[^a-z0-9]", "", k.lower()) in want
                    or want in re.sub(r"[^a-z0-9]", "", g["name"].lower())), None)
        how = f"[target] gpu = {gpu!r}" if key else f"[target] gpu = {gpu!r} is not in the table; {how}"
    if key is None and arch:
        first = arch[0].lower().removesuffix("a")
        first = first if first.startswith("sm_") else f"sm_{first.removeprefix('sm')}"
        key = next((k for k, g in gpus.items() if g["arch"] == first), None)
        how = f"[target] arch = {arch[0]!r}" if key else f"[target] arch = {arch[0]!r} has no GPU in the table; {how}"
    key = key or table["default"]
    g = gpus[key]
    lim = limits[g["arch"]]
    major, minor = int(g["arch"][3:-1]), int(g["arch"][-1])
    return {"key": key, "name": g["name"], "arch": g["arch"], "capability": [major, minor], "chosen_by": how,
            "properties": {"max_shared_mem": lim["smem_per_block_optin"], "max_num_regs": lim["max_regs_per_block"],
                           "multiprocessor_count": g["multiprocessor_count"], "warpSize": lim["warp_size"],
                           "sm_clock_rate": g["sm_clock_rate"], "mem_clock_rate": g["mem_clock_rate"],
                           "mem_bus_width": g["mem_bus_width"]},
            "total_memory": g["total_memory"], "regs_per_sm": lim["regs_per_sm"],
            "max_threads_per_sm": lim["max_threads_per_sm"], "smem_per_sm": lim["smem_per_sm"]}


# -- child side --------------------------------------------------------------------------------
def _log(query: str, answer: Any) -> None:
    entry = {"query": query, "answer": answer if isinstance(answer, (int, float, str, bool)) else repr(answer)[:300]}
    if entry not in LOG and len(LOG) < 200:
        LOG.append(entry)


class _Utils:
    def get_device_properties(self, device: Any = None) -> dict[str, int]:
        props = dict(SPEC["properties"])
        _log(f"driver.active.utils.get_device_properties({device!r})", json.dumps(props, sort_keys=True))
        return props


class VirtualDriver:
    """The subset of Triton's ``GPUDriver`` that user code touches, answering as the target GPU."""

    def __init__(self) -> None:
        self.utils = _Utils()

    @staticmethod
    def is_active() -> bool:
        return True

    def get_current_target(self) -> Any:
        from triton.backends.compiler import GPUTarget

        major, minor = SPEC["capability"]
        target = GPUTarget("cuda", major * 10 + minor, SPEC["properties"]["warpSize"])
        _log("driver.active.get_current_target()", repr(target))
        return target

    def get_active_torch_device(self) -> Any:
        import torch

        _log("driver.active.get_active_torch_device()", "cpu (the device the CUDA shim maps 'cuda' to)")
        return torch.device("cpu")

    def get_current_device(self) -> int:
        _log("driver.active.get_current_device()", 0)
        return 0

    def set_current_device(self, device: Any) -> None:
        return None

    def get_device_capability(self, device: Any = None) -> tuple[int, int]:
        cap = tuple(SPEC["capability"])
        _log("driver.active.get_device_capability()", str(cap))
        return cap  # type: ignore[return-value]

    def get_current_stream(self, device: Any = None) -> int:
        return 0

    def get_device_interface(self) -> Any:
        import torch

        return torch.cuda

    def get_benchmarker(self) -> Any:
        def bench(fn: Any, *args: Any, quantiles: Any = None, **kwargs: Any) -> Any:
            raise RuntimeError("timing a kernel needs a GPU: a CUDA device is not available here, and the "
                               "CPU interpreter has no meaningful clock")

        return bench

    def get_empty_cache_for_benchmark(self) -> Any:
        import torch

        return torch.empty(0)

    def clear_cache(self, cache: Any) -> None:
        return None


def _device_properties() -> Any:
    p = SPEC["properties"]
    major, minor = SPEC["capability"]
    return SimpleNamespace(name=SPEC["name"], major=major, minor=minor, total_memory=SPEC["total_memory"],
                           multi_processor_count=p["multiprocessor_count"], warp_size=p["warpSize"],
                           regs_per_multiprocessor=SPEC["regs_per_sm"],
                           max_threads_per_multi_processor=SPEC["max_threads_per_sm"],
                           shared_memory_per_block_optin=p["max_shared_mem"],
                           shared_memory_per_multiprocessor=SPEC["smem_per_sm"],
                           shared_memory_per_block=49152, is_integrated=0, is_multi_gpu_board=0,
                           L2_cache_size=0, uuid="virtual", gcnArchName="")


def _patch_torch() -> None:
    import torch

    def answer(name: str, value: Any) -> Any:
        def fn(*args: Any, **kwargs: Any) -> Any:
            _log(f"torch.cuda.{name}()", value() if callable(value) else value)
            return value() if callable(value) else value

        return fn

    torch.cuda.is_available = answer("is_available", True)  # type: ignore[assignment]
    torch.cuda.device_count = answer("device_count", 1)  # type: ignore[assignment]
    torch.cuda.current_device = answer("current_device", 0)  # type: ignore[assignment]
    torch.cuda.set_device = lambda *a, **k: None  # type: ignore[assignment]
    torch.cuda.get_device_name = answer("get_device_name", SPEC["name"])  # type: ignore[assignment]
    torch.cuda.get_device_capability = answer("get_device_capability",  # type: ignore[assignment]
                                              lambda: tuple(SPEC["capability"]))
    torch.cuda.get_device_properties = answer("get_device_properties", _device_properties)  # type: ignore[assignment]
    torch.cuda.is_initialized = answer("is_initialized", True)  # type: ignore[assignment]

    class device:  # noqa: N801 - torch.cuda.device's own name
        """``with torch.cuda.device(x.device):`` around a launch selects the one virtual device, which is
        already current: nothing to do (torch's own refuses a CPU device or needs a CUDA build)."""

        def __init__(self, device: Any = None) -> None:
            _log(f"torch.cuda.device({device!r})", "the virtual device (device 0, already current)")

        def __enter__(self) -> None:
            return None

        def __exit__(self, *exc: Any) -> bool:
            return False

    class device_of(device):  # noqa: N801 - torch.cuda.device_of's own name
        def __init__(self, obj: Any = None) -> None:
            super().__init__(getattr(obj, "device", obj))

    torch.cuda.device = device  # type: ignore[assignment, misc]
    torch.cuda.device_of = device_of  # type: ignore[assignment, misc]

    def is_cuda(self: Any) -> bool:
        _log("Tensor.is_cuda", "True (tensors live on the virtual device)")
        return True

    torch.Tensor.is_cuda = property(is_cuda)  # type: ignore[assignment, method-assign]


# -- kernel.warmup(): compile figures from the real compiler -------------------------------------
class VirtualCompiledKernel:
    """What ``kernel.warmup(...)`` returns on a GPU (a ``CompiledKernel``), for the target: compile
    figures from the real compiler; launching runs the interpreter."""

    def __init__(self, interpreted: Any, launch: dict[str, Any], constexprs: dict[str, Any],
                 options: dict[str, Any]) -> None:
        self._interpreted = interpreted
        self._launch = launch
        self._constexprs = constexprs
        self._options = options
        self._figures: dict[str, Any] | None = None
        self.name = launch["kernel"]

    def _compiled(self) -> dict[str, Any]:
        if self._figures is None:
            self._figures = compile_figures(self._launch)
        return self._figures

    def _init_handles(self) -> None:
        self._compiled()

    @property
    def n_regs(self) -> int:
        return int(self._compiled()["n_regs"])

    @property
    def n_spills(self) -> int:
        return int(self._compiled()["n_spills"])

    @property
    def n_max_threads(self) -> int:
        return int(self._compiled()["num_warps"]) * SPEC["properties"]["warpSize"]

    @property
    def metadata(self) -> Any:
        c = self._compiled()
        return SimpleNamespace(shared=c["shared"], num_warps=c["num_warps"], num_stages=c["num_stages"],
                               num_ctas=c.get("num_ctas", 1), name=c["name"], arch=c.get("arch"),
                               target=self._target())

    @property
    def asm(self) -> dict[str, str]:
        return {"ptx": self._compiled().get("ptx", "")}

    def _target(self) -> Any:
        from triton.backends.compiler import GPUTarget

        major, minor = SPEC["capability"]
        return GPUTarget("cuda", major * 10 + minor, SPEC["properties"]["warpSize"])

    def __getitem__(self, grid: Any) -> Any:
        def launch(*args: Any, **kwargs: Any) -> Any:
            params = self._interpreted.arg_names
            plain = [n for n in params if n not in self._constexprs]
            names = plain if len(args) == len(plain) else params
            bound = dict(zip(names, args))
            bound.update({k: v for k, v in kwargs.items() if k in params})
            for k, v in self._constexprs.items():
                bound.setdefault(k, v)
            ordered = [bound[n] for n in params if n in bound]
            options = {k: v for k, v in self._options.items() if k not in params}
            return self._interpreted.run(*ordered, grid=grid, warmup=False, **options)

        return launch


_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion")


def _launch_description(fn: Any, args: tuple[Any, ...],
                        kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    params = list(inspect.signature(fn).parameters)
    constexpr_names = [n for n, p in inspect.signature(fn).parameters.items() if "constexpr" in str(p.annotation)]
    bound = dict(zip(params, args))
    bound.update({k: v for k, v in kwargs.items() if k in params})
    described = {}
    for n, v in bound.items():
        if hasattr(v, "dtype") and not hasattr(v, "data_ptr"):  # a MockTensor (dtype only)
            described[n] = {"kind": "tensor", "dtype": str(v.dtype).removeprefix("torch."), "storage_offset": 0}
        else:
            described[n] = _describe_arg(v)
    constexprs = {n: bound[n] for n in constexpr_names if n in bound}
    try:
        file = inspect.getsourcefile(fn)
    except (OSError, TypeError):
        file = None
    launch = {"kernel": fn.__name__, "qualname": fn.__qualname__, "module": getattr(fn, "__module__", None),
              "file": file, "args": described,
              "constexprs": {k: v for k, v in constexprs.items() if isinstance(v, (int, float, bool, str))},
              "options": {k: kwargs[k] for k in _OPTIONS if k in kwargs}}
    return launch, constexprs


def compile_figures(launch: dict[str, Any]) -> dict[str, Any]:
    """Compile one launch for the target in a subprocess without the interpreter; cached per launch."""
    key = json.dumps([launch, SPEC.get("arch")], sort_keys=True, default=str)
    if key in _COMPILED:
        return _COMPILED[key]
    root = str(Path(__file__).resolve().parents[3])
    request = {"launch": launch, "spec": SPEC, "package_root": root,
               "cuda_shim": bool(_CONFIG.get("cuda_shim"))}
    answer = _ask_server(request)
    if not answer.get("ok"):
        # Rationale: the figures of a real compile are what the kernel sizes itself from; without them
        # it cannot run as written, and that is this machine's limit unless the compiler refused it.
        kind = answer.get("kind", "setup")
        msg = answer.get("error", "")
        if kind == "compile":
            raise RuntimeError(f"kernel.warmup(): {launch['kernel']} does not compile for {SPEC['arch']}: {msg}")
        raise RuntimeError(f"kernel.warmup() needs a CUDA device, or Triton's compiler and ptxas for "
                           f"{SPEC['arch']}, and they are not available here: {msg}")
    fig = answer["figures"]
    _COMPILED[key] = fig
    _log(f"{launch['kernel']}.warmup({', '.join(f'{k}={v}' for k, v in sorted(launch['constexprs'].items()))})",
         f"compiled for {SPEC['arch']}: n_regs={fig['n_regs']}, n_spills={fig['n_spills']}, "
         f"metadata.shared={fig['shared']}, num_warps={fig['num_warps']}")
    return fig


_SERVER: subprocess.Popen[str] | None = None


def _ask_server(request: dict[str, Any]) -> dict[str, Any]:
    """One compile request to the compile server (tools/engine/harness/virtual_compile.py), started on the
    first warmup of this child without TRITON_INTERPRET; it lives in this child's process group, so
    it ends with the child."""
    global _SERVER
    if _SERVER is None or _SERVER.poll() is not None:
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        _SERVER = subprocess.Popen([sys.executable, "-I", str(Path(__file__).with_name("virtual_compile.py"))],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   text=True, env=env)
    assert _SERVER.stdin is not None and _SERVER.stdout is not None
    try:
        _SERVER.stdin.write(json.dumps(request, default=str) + "\n")
        _SERVER.stdin.flush()
        line = _SERVER.stdout.readline()
    except (BrokenPipeError, OSError) as exc:
        line = ""
        why = repr(exc)
    else:
        why = "the compile server ended without an answer"
    if not line:
        _SERVER = None
        return {"ok": False, "kind": "setup", "error": why}
    return json.loads(line)


#: CUDA's launch limits on grid dimensions x, y, z (programs), the same on every NVIDIA GPU since sm_30
GRID_LIMITS = (2**31 - 1, 65535, 65535)


class GridLimitError(RuntimeError):
    """A launch whose grid a CUDA GPU refuses (cudaErrorInvalidValue / "invalid argument")."""


def launch_grid(fn: Any, args: tuple[Any, ...], grid: Any, kwargs: dict[str, Any]) -> tuple[int, ...] | None:
    """The launch's grid as three ints (None when it cannot be evaluated)."""
    try:
        names = list(inspect.signature(fn).parameters)
        meta = {**dict(zip(names, args)), **kwargs}
        g = grid(meta) if callable(grid) else grid
        dims = tuple(int(x) for x in g)
    except Exception:  # noqa: BLE001 - the interpreter reports a bad grid itself
        return None
    return dims + (1,) * (3 - len(dims)) if len(dims) <= 3 else None


def check_grid(name: str, dims: tuple[int, ...] | None) -> None:
    """Raise ``GridLimitError`` for a grid dimension over CUDA's limit, as a GPU refuses the launch."""
    if dims is None:
        return
    for axis, (n, limit) in enumerate(zip(dims, GRID_LIMITS)):
        if n > limit:
            raise GridLimitError(f"grid dimension {'xyz'[axis]} = {n:,} of the launch of {name} (grid {dims}) "
                                 f"exceeds the CUDA limit of {limit:,} programs in that dimension: a GPU refuses "
                                 f"this launch (invalid argument)")


def _patch_interpreter() -> None:
    from triton.runtime import interpreter

    if getattr(interpreter, "_kreview_virtual", False):  # per module: a fresh import of Triton is patched again
        return

    def make(original: Any) -> Any:
        @functools.wraps(original)
        def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
            if not warmup:
                # Rationale: the interpreter runs any grid; the target GPU does not (held-out: a
                # grid=(1, n_rows) wrapper fails to launch past 65,535 rows, and was accepted).
                check_grid(getattr(self.fn, "__name__", "kernel"), launch_grid(self.fn, args, grid, kwargs))
                return original(self, *args, grid=grid, warmup=warmup, **kwargs)
            launch, constexprs = _launch_description(self.fn, args, kwargs)
            options = {k: kwargs[k] for k in _OPTIONS if k in kwargs}
            return VirtualCompiledKernel(self, launch, constexprs, options)

        return run

    interpreter_launch.wrap_run(interpreter, make)  # for the process's lifetime, like the driver
    interpreter_fixes.patch_index(interpreter)
    interpreter_gaps.patch(interpreter)
    interpreter_speed.patch(interpreter)  # after the gaps' patch, which it wraps
    interpreter._kreview_virtual = True


def _config_label(cfg: Any) -> str:
    parts = [f"{k}={v}" for k, v in sorted(cfg.kwargs.items())]
    parts += [f"{k}={getattr(cfg, k)}" for k in ("num_warps", "num_stages") if getattr(cfg, k, None) is not None]
    return ", ".join(parts)


def _patch_autotuner() -> None:
    from triton.runtime import autotuner

    cls = autotuner.Autotuner
    if getattr(cls.prune_configs, "_kreview_virtual", False):
        return
    original_run = cls.run

    def qualname(self: Any) -> str:
        fn = self.fn
        while hasattr(fn, "fn") and not hasattr(fn, "__qualname__"):
            fn = fn.fn
        base = getattr(self, "base_fn", None) or fn
        return getattr(base, "__qualname__", getattr(base, "__name__", "kernel"))

    def prune_configs(self: Any, kwargs: dict[str, Any]) -> list[Any]:
        name = qualname(self)
        entry = AUTOTUNE.setdefault(name, {"configs": [_config_label(c) for c in self.configs], "chosen": []})
        index = FORCE.get(name, DEFAULT.get(name, 0))
        index = index if 0 <= index < len(self.configs) else 0
        if index not in entry["chosen"]:
            entry["chosen"].append(index)
        return [self.configs[index]]

    prune_configs._kreview_virtual = True  # type: ignore[attr-defined]

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        name = qualname(self)
        while True:
            self.cache.clear()  # the forced config may change between calls; nothing was benchmarked
            if len(self.configs) == 1:
                prune_configs(self, kwargs)
            try:
                return original_run(self, *args, **kwargs)
            except Exception as exc:
                # Rationale: on a GPU the autotuner's benchmark skips a config whose compile fails a
                # tl.static_assert (CompileTimeAssertionFailure) and runs another; so does an unforced
                # launch here (the autotune tool forces each config and names the pruned ones).
                nxt = DEFAULT.get(name, 0) + 1
                if name in FORCE or "CompileTimeAssertionFailure" not in repr(exc) or nxt >= len(self.configs):
                    raise
                DEFAULT[name] = nxt
                _log(f"@triton.autotune {name}: config {nxt - 1}", "pruned as the autotuner prunes it (a failing "
                     f"tl.static_assert); config {nxt} runs instead")

    cls.prune_configs = prune_configs
    cls.run = run


def _patch_compile() -> None:
    """``torch.compile`` runs its function eagerly: Dynamo cannot trace the Triton interpreter, and
    the kernel inside, not Inductor's code, is what is reviewed."""
    import torch

    def compile(model: Any = None, **kwargs: Any) -> Any:  # noqa: A001 - torch.compile's own name
        def eager(fn: Any) -> Any:
            _log(f"torch.compile({getattr(fn, '__qualname__', type(fn).__name__)})",
                 "ran eagerly (Dynamo cannot trace the Triton interpreter)")
            return fn

        return eager if model is None else eager(model)

    torch.compile = compile  # type: ignore[assignment]


_CONFIG: dict[str, Any] = {}


def install(config: dict[str, Any]) -> None:
    spec = config.get("virtual_gpu")
    if not spec:
        return
    SPEC.clear()
    SPEC.update(spec)
    _CONFIG.clear()
    _CONFIG.update(config)
    from triton.runtime.driver import driver

    virtual = VirtualDriver()
    driver.set_active(virtual)  # type: ignore[arg-type]
    # a reset_active() keeps the virtual device; Triton 3.4 keeps the default in a plain attribute
    if hasattr(driver, "_default"):
        driver._default = virtual
    else:
        driver.default = virtual
    _patch_torch()
    if os.environ.get("TRITON_INTERPRET") == "1":
        _patch_interpreter()
        _patch_autotuner()
        _patch_compile()
