"""Which device a submission's kernels run on when the review has a GPU (issue 27).

On an H200 the bundled TPU Pallas example (TPU compiler params) was compiled for the GPU and
"failed to build" with Pallas's own AssertionError: the GPU is not its hardware. A TPU-only kernel
runs in the interpreters there, as on a CPU; a GPU-style Pallas kernel and a Triton kernel keep the GPU.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.ingest import load_submission
from tools.engine.registry import backend_for
from tools.engine.runsetup import DeviceInfo

EXAMPLES = Path(__file__).resolve().parents[5] / "examples"
H200 = DeviceInfo(kind="cuda", name="NVIDIA H200", capability=(9, 0), index=0, uuid="GPU-x", bus_id="0000:00:06.0")
CPU = DeviceInfo(kind="cpu", name="cpu")


def test_a_tpu_pallas_kernel_runs_in_the_interpreter_on_a_gpu_machine() -> None:
    sub = load_submission(EXAMPLES / "rowsum_pallas")
    backend = backend_for(sub.framework)
    got = backend.device_for(sub, H200)
    assert got.kind == "cpu" and "TPU kernel" in got.name and "H200" in got.name
    assert backend.run_setup(got).interpreted
    assert backend.device_for(sub, CPU) is CPU


def test_a_gpu_style_pallas_kernel_and_a_triton_kernel_keep_the_gpu(tmp_path: Path) -> None:
    sub = load_submission(EXAMPLES / "rowsum_pallas")
    gpu_style = tmp_path / "gpu_style"
    gpu_style.mkdir()
    for f in ("reference.py", "submission.py"):
        text = (EXAMPLES / "rowsum_pallas" / f).read_text()
        if f == "submission.py":
            text = text.replace("from jax.experimental.pallas import tpu as pltpu",
                                "from jax.experimental.pallas import triton as pltriton")
            text = text.replace('compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary")),',
                                "compiler_params=pltriton.CompilerParams(num_warps=4),")
        (gpu_style / f).write_text(text)
    sub = load_submission(gpu_style)
    assert backend_for(sub.framework).device_for(sub, H200) is H200
    triton = load_submission(EXAMPLES / "softmax_triton")
    assert backend_for(triton.framework).device_for(triton, H200) is H200
