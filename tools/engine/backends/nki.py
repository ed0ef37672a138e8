"""NKI (AWS Neuron Kernel Interface): which NKI a sandbox child runs kernels with.

If the real Neuron SDK imports (``neuronxcc.nki`` of SDK <= 2.26, or the top-level ``nki`` of 2.27+),
kernels run through its simulator (or on hardware when a Neuron device is present); otherwise through
the reviewer's interpreter (``tools.engine.nki.interp``). PyPI's ``nki``/``neuronx-cc`` packages are
placeholders that raise ImportError, so "installed" is decided by importing, in a separate process.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from typing import ClassVar

from tools.engine.backends.base import Backend

from tools.engine.runsetup import DeviceInfo, RunSetup
import tools.engine.nki.version as V

PRELUDE = "tools.engine.nki.prelude"
_SHIM = "tools.engine.harness.cuda_shim"
FORCE_ENV = "KREVIEW_NKI_BACKEND"

_PROBE = r"""
import json, os
out = {"neuronxcc": None, "nki": None, "device": any(os.path.exists(f"/dev/neuron{i}") for i in range(16))}
try:
    import neuronxcc.nki as m
    if hasattr(m, "simulate_kernel") and hasattr(m, "jit"):
        import neuronxcc
        out["neuronxcc"] = getattr(neuronxcc, "__version__", "unknown")
except Exception:
    pass
try:
    import nki as m
    if hasattr(m, "simulate") and hasattr(m, "jit"):
        out["nki"] = getattr(m, "__version__", "unknown")
except Exception:
    pass
print(json.dumps(out))
"""


@functools.cache
def probe_sdk() -> dict[str, object]:
    """What NKI the environment really has, found by importing it in a throwaway process."""
    try:
        done = subprocess.run([sys.executable, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=120,
                              check=False)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, OSError, ValueError, IndexError):
        return {"neuronxcc": None, "nki": None, "device": False}


def describe_interpreter() -> str:
    return (f"{V.INTERPRETER_LABEL} (neuronxcc.nki API of Neuron SDK {V.SDK_VERSION}, {V.TARGET} limits); "
            "the Neuron SDK is not importable here")


class NkiBackend(Backend):
    name = "nki"
    markers = (r"neuronxcc", r"^\s*import nki\b", r"^\s*from nki\b", r"nki\.jit", r"\bnl\.", r"\bnisa\.")
    priority = 40
    supports_sanitizer: ClassVar[bool] = True

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        preludes = (PRELUDE,) if device.has_gpu else (PRELUDE, _SHIM)
        sdk = probe_sdk() if os.environ.get(FORCE_ENV) != "interpreter" else {}
        if sdk.get("neuronxcc"):
            where = "on the Neuron device" if sdk.get("device") else "through the SDK's nki.simulate_kernel"
            return RunSetup(can_run=True, env=(("KREVIEW_NKI_MODE", "neuronxcc"),), preludes=preludes,
                            interpreted=not sdk.get("device"),
                            note=f"AWS Neuron SDK neuronxcc {sdk['neuronxcc']}: kernels run {where}")
        if sdk.get("nki"):
            env = (("KREVIEW_NKI_MODE", "nki"),) + ((("NKI_SIMULATOR", "1"),) if not sdk.get("device") else ())
            where = "on the Neuron device" if sdk.get("device") else "on the SDK's CPU simulator (NKI_SIMULATOR=1)"
            return RunSetup(can_run=True, env=env, preludes=preludes, interpreted=not sdk.get("device"),
                            note=f"AWS Neuron SDK nki {sdk['nki']}: kernels run {where}")
        return RunSetup(can_run=True, env=(("KREVIEW_NKI_MODE", "interpreter"),), preludes=preludes,
                        interpreted=True, note=describe_interpreter())
