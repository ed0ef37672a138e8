"""Run as a script by the virtual device (tools/engine/harness/virtual_gpu.py) for ``kernel.warmup(...)``:
compile one launch for the target GPU with the real Triton compiler (no TRITON_INTERPRET in this
process: the interpreter and the compiler cannot share one), then run Triton's ptxas -v on the PTX,
and print the figures a ``CompiledKernel`` would carry (``n_regs``, ``n_spills``, ``metadata.shared``)
as one JSON line.

It runs as a child of the sandboxed child, so it inherits its limits and isolation; it imports the
submission's module again (its kernels must exist by name), under the same CUDA shim and virtual
device as the run child. Like the run child, it imports all of the reviewer's modules it needs first
and then withdraws them (tools/engine/sandbox/own_modules.py), so the submission's own ``tools`` or
``reviewer`` package is the one it imports.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

# the reviewer's modules this server runs on, imported by ``_prepare`` before the submission's code
_OWN = SimpleNamespace()


def _prepare(request: dict[str, Any]) -> None:
    root = request.get("package_root")
    if root and root not in sys.path:
        sys.path.insert(0, root)
    import tools.engine.compilers.toolchain as toolchain
    import tools.engine.harness.cuda_shim as cuda_shim
    import tools.engine.harness.virtual_gpu as virtual_gpu
    from tools.engine.compilers.ptxas import parse_ptxas
    from tools.engine.compilers.triton_child import _compile
    from tools.engine.sandbox.own_modules import withdraw

    cuda_shim.install({"cuda_shim": request.get("cuda_shim", True)})
    virtual_gpu.install({"virtual_gpu": request["spec"]})
    _OWN.toolchain, _OWN.parse_ptxas, _OWN.compile = toolchain, parse_ptxas, _compile
    _OWN.held = withdraw(root or "")


def _figures(request: dict[str, Any]) -> dict[str, Any]:
    launch = request["launch"]
    arch = int(request["spec"]["arch"][3:])
    out = Path(tempfile.mkdtemp(prefix="kreview-warmup-"))
    src_root = str(Path(launch["file"]).parent) if launch.get("file") else "."
    try:
        result = _OWN.compile({"launch": launch, "target": {"backend": "cuda", "arch": arch, "warp_size": 32},
                           "out_dir": str(out), "src_root": src_root}, None)
    except (LookupError, ImportError, OSError) as exc:  # the kernel could not be found again: our limit
        return {"ok": False, "kind": "setup", "error": f"{type(exc).__name__}: {str(exc)[:1500]}"}
    except Exception as exc:  # noqa: BLE001 - reported to the caller as the compiler's refusal
        return {"ok": False, "kind": "compile", "error": f"{type(exc).__name__}: {str(exc)[:1500]}"}
    ptx = out / result["files"].get("ptx", "missing.ptx")
    gpu_name = f"sm_{arch}{'a' if arch >= 90 else ''}"
    ptxas = _OWN.toolchain.ptxas_for(gpu_name)
    if ptxas is None or not ptx.exists():
        return {"ok": False, "kind": "setup", "error": "ptxas not found (neither in Triton's wheel nor a CUDA toolkit)"}
    # already inside the sandbox's limits: a plain subprocess (toolchain.run_tool would raise them)
    run = subprocess.run([ptxas, "-v", "--regAllocOptLevel=2", f"--gpu-name={gpu_name}", ptx.name,
                          "-o", "k.cubin"], cwd=out, capture_output=True, text=True, timeout=120, check=False)
    log = run.stderr + run.stdout
    report = _OWN.parse_ptxas(log)
    usage = report.kernel(result["name"], None) or (report.kernels[0] if report.kernels else None)
    if run.returncode != 0 or usage is None or usage.registers is None:
        return {"ok": False, "kind": "setup", "error": f"ptxas failed: {log[-800:]}"}
    return {"ok": True, "figures": {
        "name": result["name"], "n_regs": usage.registers,
        # Rationale: Triton's n_spills is the function's local memory size in 4-byte words
        # (CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES / 4); ptxas reports that size as the stack frame.
        "n_spills": usage.stack_frame // 4, "spill_stores": usage.spill_stores,
        "shared": result["shared"], "num_warps": result["num_warps"], "num_stages": result["num_stages"],
        "num_ctas": result["num_ctas"], "arch": result["arch"], "ptx": ""}}


def main() -> int:
    """Serve compile requests, one JSON line in, one JSON line out, until stdin closes.

    Rationale: starting Python, torch and Triton and importing the submission costs seconds; one
    server per run child pays that once, so a warmup for a new dtype or block size costs one compile."""
    # answers go to a private copy of stdout; whatever the submission prints goes to stderr
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    prepared = False
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not prepared:
                _prepare(request)
                prepared = True
            answer = _figures(request)
        except Exception as exc:  # noqa: BLE001 - anything else is this machine's problem, said as such
            answer = {"ok": False, "kind": "setup", "error": f"{type(exc).__name__}: {str(exc)[:1500]}"}
        out.write(json.dumps(answer, default=str) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
