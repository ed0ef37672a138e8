"""Pieces of the Pallas support that need no sandbox: the torch/JAX bridge, the partial-block
planner, lowering classification, static findings, and the JAX internals the checks depend on."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
import torch

from reviewer.core.submission import Submission, Target
from tools.engine.backends.pallas import PallasBackend, classify_lowering, intended_targets
from tools.engine.harness import tensors
from tools.pallas_padding import padded_sizes, plan_cases

INT_MIN = -(2**31)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "int32", "bool", "float8_e4m3fn"])
def test_jax_arrays_round_trip_through_torch_with_dtype(dtype: str) -> None:
    x = jnp.asarray(np.arange(12).reshape(3, 4) % 5).astype(dtype)
    (t,), kinds = tensors.normalise([x])
    assert kinds == {"0": "jax"}
    assert isinstance(t, torch.Tensor) and str(t.dtype) == f"torch.{dtype}"
    back = tensors.restore([t], kinds)[0]
    assert isinstance(back, jax.Array) and back.dtype == x.dtype
    assert np.array_equal(np.asarray(back).astype(np.float32), np.asarray(x).astype(np.float32))


def test_numpy_bf16_and_nested_structures_keep_their_kind() -> None:
    a = np.linspace(-2, 2, 6, dtype=np.float32).astype(ml_dtypes.bfloat16)
    value = [torch.ones(2), {"w": a}, 3]
    plain, kinds = tensors.normalise(value)
    assert kinds == {"1.w": "numpy"} and plain[1]["w"].dtype == torch.bfloat16
    back = tensors.restore(plain, kinds)
    assert isinstance(back[1]["w"], np.ndarray) and back[1]["w"].dtype == a.dtype
    assert isinstance(back[0], torch.Tensor) and back[2] == 3


def test_tensors_module_saves_describes_and_casts_jax_values(tmp_path) -> None:
    x = jnp.ones((2, 3), jnp.float32)
    desc = tensors.describe([x])[0]
    assert desc["framework"] == "jax" and desc["shape"] == [2, 3] and desc["dtype"] == "float32"
    tensors.save([x], str(tmp_path / "o.pt"))
    assert tensors.load(str(tmp_path / "o.pt"))[0].dtype == torch.float32
    assert tensors.cast_floating([x], torch.bfloat16)[0].dtype == jnp.bfloat16
    assert tensors.cast_floating([jnp.ones(2, jnp.int32)], torch.bfloat16)[0].dtype == jnp.int32


@pytest.mark.parametrize(("value", "block"), [(2048, 512), (64, 8), (1000, 128), (24, 8), (100, 256)])
def test_padded_sizes_leave_an_odd_partial_block(value: int, block: int) -> None:
    sizes = padded_sizes(value, block)
    assert sizes
    for size, pad in sizes:
        assert size > 0 and size != value and size % block == block - pad
        assert pad % 2 == 1
        # an odd count of INT_MIN never wraps to 0 in int32, unlike e.g. 24 of them
        assert (pad * INT_MIN) % 2**32 != 0
    assert (24 * INT_MIN) % 2**32 == 0
    assert padded_sizes(10, 1) == []


def test_plan_cases_match_size_parameters_to_blocked_dimensions() -> None:
    calls = [{"kernel": "k", "blocks": [
        {"origin": "args[0]", "block_shape": [8, 512], "array_shape": [64, 2048]},
        {"origin": "outputs", "block_shape": [8, 1], "array_shape": [64, 1]},
        {"origin": "args[1]", "block_shape": [64, 2048], "array_shape": [64, 2048]}]}]
    plans = plan_cases(calls, {"batch_size": 64, "dim": 2048, "unrelated": 7})
    assert {(p["param"], p["size"]) for p in plans if p["pad"] == 1} == {("batch_size", 63), ("dim", 2047)}
    assert all(p["param"] != "unrelated" for p in plans) and len(plans) <= 4
    assert plan_cases(calls, {"other": 5}) == []


def _sub(**target) -> Submission:
    return Submission(root="/x", name="x", format="kernelbench", framework="pallas", reference_file="r.py",
                      submission_file="submission.py", target=Target(**target))


def test_intended_targets_follow_compiler_params_then_manifest_then_imports() -> None:
    assert intended_targets("triton", _sub(gpu="tpu v5e"), "") == {"triton"}
    assert intended_targets(None, _sub(gpu="tpu v5e"), "") == {"tpu"}
    assert intended_targets(None, _sub(arch=["sm_90"]), "") == {"triton"}
    assert intended_targets(None, _sub(), "from jax.experimental.pallas import tpu as pltpu") == {"tpu"}
    assert intended_targets(None, _sub(), "from jax.experimental.pallas import triton as pltriton") == {"triton"}
    assert intended_targets(None, _sub(), "from jax.experimental import pallas as pl") == {"tpu", "triton"}


def test_lowering_errors_are_classified_by_rule() -> None:
    tpu = {"status": "error", "message": "The Pallas TPU lowering currently requires that the last two dimensions "
                                          "of your block shape are divisible by 8 and 128 respectively"}
    assert classify_lowering(tpu, True) == ("rejected", "tpu_block_tiling")
    tri = {"status": "error", "message": "The Pallas Triton lowering currently requires that all operations have "
                                          "array arguments and results whose size is a power of 2."}
    assert classify_lowering(tri, False) == ("rejected", "triton_power_of_two")
    other = {"status": "error", "message": "Compiler params for platform tpu cannot be used for gpu lowering."}
    assert classify_lowering(other, False) == ("unsupported", None)
    prim = {"status": "error", "message": "Unimplemented primitive in Pallas Mosaic GPU lowering: foo"}
    assert classify_lowering(prim, False)[0] == "unsupported" and classify_lowering(prim, True)[0] == "rejected"
    assert classify_lowering({"status": "ok"}, True) == ("ok", None)
    # the reviewer's install or its JAX version, never the kernel: an intended target is then unverified
    cpu_jaxlib = {"status": "error", "message": "Cannot lower pallas_call on platform: gpu. To use Pallas on GPU, "
                                                "install jaxlib GPU 0.4.24 or newer."}
    assert classify_lowering(cpu_jaxlib, True) == ("unavailable", None)
    assert classify_lowering({"status": "unavailable", "message": "no switch"}, True) == ("unavailable", None)


def test_hard_coded_interpreter_is_a_static_finding(tmp_path) -> None:
    (tmp_path / "submission.py").write_text("import x\nf = pl.pallas_call(k, out_shape=s, interpret=True)\n")
    sub = Submission(root=str(tmp_path), name="x", format="manifest", framework="pallas", reference_file="r.py",
                     submission_file="submission.py")
    found = PallasBackend().static_findings(sub)
    assert [(f.category, f.line) for f in found] == [("interpret_hardcoded", 2)]


def test_pinned_jax_internals_the_checks_rely_on_are_present() -> None:
    # If jax moves these, the TPU-interpreter checks must fail loudly here, not pass silently.
    from jax._src import config
    from jax._src.pallas import pallas_call as impl
    from jax._src.pallas.mosaic.interpret import interpret_pallas_call as ipc
    from jax._src.pallas.mosaic.interpret import race_detection_state as rds
    from jax.experimental.pallas import tpu as pltpu

    assert jax.__version__ == "0.10.2"
    assert hasattr(rds, "RaceDetectionState") and hasattr(ipc, "races")
    with open(rds.__file__) as fh:
        assert "print(" in fh.read()
    assert callable(impl.pallas_call) and hasattr(config, "jax_pallas_use_mosaic_gpu")
    params = pltpu.InterpretParams(detect_races=True, out_of_bounds_reads="raise", uninitialized_memory="nan",
                                   num_cores_or_threads=2, random_seed=3)
    assert params.random_seed == 3 and callable(pltpu.reset_tpu_interpret_mode_state)
