"""Sandbox-child prelude for NKI submissions: make ``import neuronxcc.nki`` / ``import nki`` work.

``KREVIEW_NKI_MODE`` (set by ``tools.engine.backends.nki``) says which NKI the child uses:

- ``interpreter``: the real SDK is not importable here; ``neuronxcc``, ``neuronxcc.nki(.language,
  .isa, .typing)`` and the newer ``nki(.language, .isa, .typing)`` resolve to the reviewer's
  interpreter (``tools.engine.nki.interp``).
- ``neuronxcc``: the real ``neuronxcc.nki`` imports. Without a Neuron device, ``nki.jit`` kernels
  called with torch tensors run through the SDK's own ``simulate_kernel`` (NumPy in, NumPy out); on a
  Neuron device they run on hardware untouched.
- ``nki``: the real top-level ``nki`` (SDK 2.27+) imports; without a device the backend sets
  ``NKI_SIMULATOR=1``, the SDK's documented switch that runs every ``@nki.jit`` kernel on its simulator.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from typing import Any

import tools.engine.harness.instruments.nki  # noqa: F401 - registers the ``nki`` instrument of this child
import tools.engine.nki.interp as nki
import tools.engine.nki.interp.isa as isa
import tools.engine.nki.interp.language as language
import tools.engine.nki.interp.typing as typing
from tools.engine.nki.interp.errors import NkiUnsupportedName
from tools.engine.nki.interp.kernel import _is_torch, numpy_to_torch, torch_to_numpy

MODE_ENV = "KREVIEW_NKI_MODE"


def _stub(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)

    def missing(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise NkiUnsupportedName(f"{name}.{attr}")

    mod.__getattr__ = missing  # type: ignore[attr-defined]
    return mod


def install_interpreter() -> None:
    compiler = _stub("neuronxcc.nki.compiler")
    nki.compiler = compiler  # type: ignore[attr-defined]
    top = types.ModuleType("neuronxcc")
    top.__path__ = []  # type: ignore[attr-defined]
    top.nki = nki  # type: ignore[attr-defined]
    for prefix in ("neuronxcc.nki", "nki"):
        sys.modules[prefix] = nki
        sys.modules[f"{prefix}.language"] = language
        sys.modules[f"{prefix}.isa"] = isa
        sys.modules[f"{prefix}.typing"] = typing
        sys.modules[f"{prefix}.compiler"] = compiler
    sys.modules["neuronxcc"] = top


def has_neuron_device() -> bool:
    return any(os.path.exists(f"/dev/neuron{i}") for i in range(16))


def install_real_neuronxcc() -> None:
    """Route torch-called kernels through the SDK simulator when there is no Neuron device."""
    import neuronxcc.nki as real

    if has_neuron_device():
        return
    real_jit = real.jit

    def jit(func: Any = None, mode: str = "auto", **kwargs: Any) -> Any:
        if func is None:
            return lambda f: jit(f, mode, **kwargs)
        kernel = real_jit(func, **kwargs)

        @functools.wraps(func)
        def call(*args: Any) -> Any:
            like = next((a for a in args if _is_torch(a)), None)
            np_args = [torch_to_numpy(a) if _is_torch(a) else a for a in args]
            out = real.simulate_kernel(kernel, *np_args)
            if like is None:
                return out
            if isinstance(out, (list, tuple)):
                return type(out)(numpy_to_torch(o, like) for o in out)
            return numpy_to_torch(out, like)

        call.real_kernel = kernel  # type: ignore[attr-defined]
        return call

    real.jit = jit


def install(config: dict[str, Any]) -> None:
    mode = os.environ.get(MODE_ENV, "interpreter")
    if mode == "interpreter":
        install_interpreter()
    elif mode == "neuronxcc":
        install_real_neuronxcc()
