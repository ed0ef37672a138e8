"""Where a kernel computes what it stores: the value's arithmetic and its loads, not the addressing."""

from __future__ import annotations

import textwrap

from reviewer.core.lines import runs
from tests.conftest import EXAMPLES
from tools.engine.source import source_file
from tools.engine.value_slice import MAX_LINES, value_slices


def _slices(text: str):
    src = source_file("submission.py", textwrap.dedent(text))
    assert src is not None
    return value_slices(src)


def test_a_triton_store_names_its_value_arithmetic_and_load_not_the_offsets() -> None:
    # the bundled buggy GELU: its kernel, then a host module (ModelNew) that is not device code
    text = (EXAMPLES / "gelu_triton_buggy" / "submission.py").read_text()
    src = source_file("submission.py", text)
    assert src is not None
    (s,) = value_slices(src)
    lines = text.splitlines()

    def at(fragment: str) -> int:
        return next(i for i, ln in enumerate(lines, start=1) if fragment in ln)

    assert s.kernel == "gelu_kernel" and s.stores == (at("tl.store("),)
    # load, u, tanh_u, store; pid/offs/mask (addressing) and the host code are not named
    assert runs(s.lines) == [(at("x = tl.load("), at("tl.store("))]
    assert at("mask = offs <") not in s.lines and at("pid = tl.program_id") not in s.lines


def test_an_accumulator_in_a_loop_is_followed_through_its_augmented_assignment() -> None:
    (s,) = _slices('''
        import triton
        import triton.language as tl

        @triton.jit
        def rowsum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            acc = tl.zeros([BLOCK], dtype=tl.float16)
            for start in range(0, n, BLOCK):
                cols = start + tl.arange(0, BLOCK)
                acc += tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0)
            total = tl.sum(acc, axis=0)
            tl.store(out_ptr + row, total)
        ''')
    # the fp16 accumulator's line is named: where a wrong accumulator type lives
    assert runs(s.lines) == [(8, 8), (11, 13)]


def test_pallas_ref_assignments_and_nki_stores_are_stores() -> None:
    (p,) = _slices('''
        import functools
        import jax.numpy as jnp
        from jax.experimental import pallas as pl

        def kernel(x_ref, o_ref, *, scale):
            v = x_ref[...] * scale
            o_ref[...] = v + 1

        def run(x):
            return pl.pallas_call(functools.partial(kernel, scale=2.0), out_shape=x)(x)
        ''')
    assert p.kernel == "kernel" and runs(p.lines) == [(7, 8)]
    (n,) = _slices('''
        import neuronxcc.nki as nki
        import neuronxcc.nki.language as nl

        @nki.jit
        def add(a, b):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            ta = nl.load(a)
            tb = nl.load(b)
            nl.store(out, value=ta - tb)
            return out
        ''')
    assert runs(n.lines) == [(8, 10)]


def test_a_slice_too_long_to_be_a_place_names_the_stores_only() -> None:
    body = "\n".join(f"    v{i} = v{i - 1} * 1.5" for i in range(1, MAX_LINES + 4))
    text = ("import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x_ptr, o_ptr):\n"
            "    v0 = tl.load(x_ptr)\n" + body + f"\n    tl.store(o_ptr, v{MAX_LINES + 3})\n")
    (s,) = _slices(text)
    assert s.lines == s.stores == (len(text.splitlines()),)


def test_no_kernel_no_slice() -> None:
    assert _slices("import torch\n\ndef f(x):\n    x[0] = 1\n    return x\n") == []


def test_cuda_stores_through_writable_pointers_and_their_values_not_indices() -> None:
    from tools.engine.value_slice import cuda_value_slices

    text = textwrap.dedent('''
        __global__ void __launch_bounds__(256) mm(const float* __restrict__ A, const float* B, float* C,
                                                  int M, int N, int K) {
            __shared__ float tile[16][16];
            int row = blockIdx.y * 16 + threadIdx.y;  // addressing: not named
            int col = blockIdx.x * 16 + threadIdx.x;
            half acc = 0;
            for (int k = 0; k < K; ++k) {
                tile[threadIdx.y][threadIdx.x] = A[row * K + k];
                acc += tile[threadIdx.y][threadIdx.x] * B[k * N + col];
            }
            if (row < M && col < N) C[row * N + col] = acc;
        }
        __global__ void reads_only(const float* x, int n) { float y = x[0] * 2; }
        ''')
    (s,) = cuda_value_slices(text)
    assert s.kernel == "mm" and s.stores == (12,)
    assert runs(s.lines) == [(7, 7), (9, 10), (12, 12)]  # the half accumulator, the tile, the sum, the store


def test_spans_come_from_the_submissions_own_files_never_its_reference(tmp_path) -> None:
    import shutil

    from reviewer.ingest import load_submission
    from tools.engine.source import SourceView
    from tools.engine.value_slice import value_spans

    shutil.copytree(EXAMPLES / "gelu_triton_buggy", tmp_path / "sub")
    reference = tmp_path / "sub" / "reference.py"
    # a reference that is itself a Triton kernel (a port's original, a GPU MODE reference): its stores are
    # not where the submission's values are computed
    reference.write_text(reference.read_text() + textwrap.dedent('''
        import triton
        import triton.language as tl

        @triton.jit
        def ref_kernel(x_ptr, o_ptr):
            tl.store(o_ptr, tl.load(x_ptr) * 2)
        '''))
    sub = load_submission(tmp_path / "sub")
    spans = value_spans(sub, SourceView(sub))
    assert spans and {s.file for s in spans} == {"submission.py"}
    assert any("0.044715" in s.quote for s in spans)
