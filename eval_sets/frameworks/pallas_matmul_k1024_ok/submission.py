import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BM, BN, BK = 64, 128, 256


def mm_kernel(a_ref, b_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

    @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
    def _():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    if M % BM or N % BN or K % BK:
        raise ValueError(f"matmul needs M % {BM}, N % {BN}, K % {BK} == 0, got {a.shape} @ {b.shape}")
    return pl.pallas_call(
        mm_kernel,
        out_shape=jax.ShapeDtypeStruct((M, N), a.dtype),
        grid=(M // BM, N // BN, K // BK),
        in_specs=[pl.BlockSpec((BM, BK), lambda i, j, k: (i, k)), pl.BlockSpec((BK, BN), lambda i, j, k: (k, j))],
        out_specs=pl.BlockSpec((BM, BN), lambda i, j, k: (i, j)),
        scratch_shapes=[pltpu.VMEM((BM, BN), jnp.float32)],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "parallel", "arbitrary")),
    )(a, b)
