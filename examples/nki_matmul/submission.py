"""Tiled NKI matmul written after the NKI matrix-multiplication tutorial's structure: output tiles of
[128, 512], the contraction dimension tiled by 128 and accumulated in a zeroed PSUM tile, the result
copied to SBUF and stored. Requires M, K multiples of 128 and N a multiple of 512 (asserted).
Expect: builds=pass, correctness=pass
"""

import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def matmul_kernel(lhsT, rhs):
    K, M = lhsT.shape
    K2, N = rhs.shape
    assert K == K2
    tk, tm, tn = nl.tile_size.pmax, nl.tile_size.gemm_stationary_fmax, nl.tile_size.gemm_moving_fmax
    assert K % tk == 0 and M % tm == 0 and N % tn == 0, "sizes must be multiples of the tile sizes"
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // tm):
        for n in nl.affine_range(N // tn):
            acc = nl.zeros((tm, tn), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // tk):
                a_tile = nl.load(lhsT[k * tk:(k + 1) * tk, m * tm:(m + 1) * tm])
                b_tile = nl.load(rhs[k * tk:(k + 1) * tk, n * tn:(n + 1) * tn])
                acc += nl.matmul(a_tile, b_tile, transpose_x=True)
            nl.store(out[m * tm:(m + 1) * tm, n * tn:(n + 1) * tn], value=nl.copy(acc, dtype=out.dtype))
    return out


def matmul(a_t, b):
    return matmul_kernel(a_t, b)
