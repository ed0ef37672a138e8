"""The NKI interpreter on small kernels written here: the rules it enforces (with the messages users
of the real toolchain see, where documented), its numerics, and what it records."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch

import tools.engine.nki.interp as nki
from tools.engine.nki.interp import isa as nisa
from tools.engine.nki.interp import language as nl
from tools.engine.nki.interp import typing as nt
from tools.engine.nki.interp.errors import UNSUPPORTED_MARK, NkiUnsupported
from tools.engine.nki.interp.recorder import RECORDER


@pytest.fixture(autouse=True)
def _fresh_recorder() -> None:
    RECORDER.reset()


def kinds() -> list[str]:
    return [e["kind"] for e in RECORDER.events]


def rand(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape).astype(dtype)


# -- rules that make the real toolchain fail, with its documented messages ------------------------------
def test_partition_dimension_over_128_is_rejected_with_the_documented_message() -> None:
    @nki.jit
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        return out

    with pytest.raises(SyntaxError, match=r"^Size of partition dimension 256 exceeds architecture limitation "
                                          r"of 128\.$") as info:
        kernel(rand(256, 64))
    assert info.value.nki_code == "err_num_partition_exceed_arch_limit" and info.value.nki_documented
    assert kinds() == ["partition_limit"]
    assert RECORDER.events[0]["line"] == kernel.fn.__code__.co_firstlineno + 3


def test_psum_overflow_is_rejected() -> None:
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        accs = [nl.zeros((128, 512), nl.float32, buffer=nl.psum) for _ in range(9)]
        nl.store(out, value=nl.copy(accs[0]))
        return out

    with pytest.raises(SyntaxError, match=r"PSUM overflow: .* 18432 bytes per partition; PSUM holds 16384 bytes per "
                                          r"partition \(8 banks of 2048 bytes, 2 MiB in all\)"):
        kernel(rand(128, 512))
    assert kinds() == ["psum_overflow"]


def test_eight_psum_banks_fit_and_matmul_accumulation_does_not_count_twice() -> None:
    @nki.jit
    def kernel(a_t, b):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        accs = [nl.zeros((128, 512), nl.float32, buffer=nl.psum) for _ in range(8)]
        for acc in accs:
            acc += nl.matmul(nl.load(a_t), nl.load(b), transpose_x=True)
        nl.store(out, value=nl.copy(accs[7]))
        return out

    a_t, b = rand(128, 128), rand(128, 512)
    np.testing.assert_allclose(kernel(a_t, b), a_t.T @ b, rtol=1e-4, atol=1e-4)
    assert RECORDER.peak["psum"]["bytes_per_partition"] == 16384


def test_psum_tile_wider_than_a_bank_is_rejected() -> None:
    @nki.jit
    def kernel(a):
        t = nl.zeros((128, 1024), nl.float32, buffer=nl.psum)
        return t

    with pytest.raises(SyntaxError, match="exceeding one PSUM bank of 2048 bytes"):
        kernel(rand(4, 4))


def test_out_of_bounds_load_is_rejected_with_the_documented_message_and_a_mask_fixes_it() -> None:
    def body(a, masked):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(a.shape[1])[None, :]
        for t in nl.affine_range(3):
            r = t * 128 + i_p
            m = (r < a.shape[0]) if masked else None
            nl.store(out[r, i_f], value=nl.load(a[r, i_f], mask=m), mask=(r < a.shape[0]))
        return out

    a = rand(300, 16)
    with pytest.raises(IndexError, match=r"^Out-of-bound access for tensor `a` on dimension 0: index range "
                                         r"\[256, 383\] exceed dimension size of 300$") as info:
        nki.simulate_kernel(body, a, False)
    assert info.value.nki_code == "err_tensor_access_out_of_bound"
    np.testing.assert_array_equal(nki.simulate_kernel(body, a, True), a)


def test_slice_past_the_end_is_out_of_bounds_not_clipped() -> None:
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a[0:128, 0:64]))
        return out

    with pytest.raises(IndexError, match=r"on dimension 1: index range \[0, 63\] exceed dimension size of 32"):
        kernel(rand(128, 32))


@pytest.mark.parametrize(("stat", "mov", "message"), [
    ((128, 256), (128, 512), "stationary tile free size 256 exceeds"),
    ((128, 128), (128, 1024), "moving tile free size 1024 exceeds"),
    ((128, 128), (64, 512), "number of partitions"),
])
def test_matmul_tile_limits(stat: tuple[int, int], mov: tuple[int, int], message: str) -> None:
    def body(s, m):
        return nisa.nc_matmul(nl.load(s), nl.load(m))

    with pytest.raises(SyntaxError, match=message):
        nki.simulate_kernel(body, rand(*stat), rand(*mov))


def test_matmul_rejects_integer_operands_and_operands_outside_sbuf() -> None:
    def ints(s, m):
        return nisa.nc_matmul(nl.load(s), nl.load(m))

    with pytest.raises(TypeError, match="Tensor Engine takes"):
        nki.simulate_kernel(ints, np.ones((8, 8), np.int32), np.ones((8, 8), np.int32))

    def from_hbm(s, m):
        return nisa.nc_matmul(s, nl.load(m))

    with pytest.raises(SyntaxError, match="Expected operand 'stationary' of 'nc_matmul' to be in address space "
                                          "'sbuf', but got a tile in 'hbm' instead."):
        nki.simulate_kernel(from_hbm, rand(8, 8), rand(8, 8))


def test_writing_an_immutable_argument_is_rejected_and_a_mutable_one_is_written_back() -> None:
    def plain(a):
        nl.store(a, value=nl.load(a))
        return a

    with pytest.raises(SyntaxError, match="^Cannot update immutable parameter `a`"):
        nki.simulate_kernel(plain, rand(4, 4))

    def mutable(a: nt.mutable_tensor):
        nl.store(a, value=nl.multiply(nl.load(a), 2.0))
        return a

    t = torch.ones(4, 4)
    out = nki.jit(mutable)(t)
    assert torch.equal(t, torch.full((4, 4), 2.0)) and torch.equal(out, t)


def test_loop_scoped_tensor_used_after_its_iteration_is_rejected() -> None:
    def body(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(2):
            tile = nl.load(a)
        nl.store(out, value=tile)
        return out

    with pytest.raises(SyntaxError, match="Local variable 'tile' is referenced outside of its parent scope"):
        nki.simulate_kernel(body, rand(4, 4))


def test_control_flow_on_index_and_on_tensor_values_is_rejected() -> None:
    def on_index(a):
        i = nl.arange(4)[None, :]
        if i > 2:
            pass

    with pytest.raises(SyntaxError, match="Control-flow depending on `nl.arange` or `nl.mgrid` is not supported"):
        nki.simulate_kernel(on_index, rand(4, 4))

    def on_tensor(a):
        if nl.load(a):
            pass

    with pytest.raises(ValueError, match="Cannot evaluate truth value of a multi-element tensor/array."):
        nki.simulate_kernel(on_tensor, rand(4, 4))


def test_indexing_rules() -> None:
    def one_d(a):
        return nl.load(a[nl.arange(4), 0])

    with pytest.raises(IndexError, match="1d arange is not supported"):
        nki.simulate_kernel(one_d, rand(4, 4))

    def mixed(a):
        return nl.load(a[nl.arange(4)[:, None], :])

    with pytest.raises(IndexError, match="Mixing basic tensor indexing and advanced tensor indexing is not supported."):
        nki.simulate_kernel(mixed, rand(4, 4))


def test_memory_space_reduction_axis_and_hbm_init_rules() -> None:
    def exp_on_hbm(a):
        return nl.exp(a)

    with pytest.raises(SyntaxError, match="Expected operand 'x' of 'exp' to be in address space 'sbuf|psum'"):
        nki.simulate_kernel(exp_on_hbm, rand(4, 4))

    def reduce_p(a):
        return nl.sum(nl.load(a), axis=0)

    with pytest.raises(SyntaxError, match="not the partition dimension"):
        nki.simulate_kernel(reduce_p, rand(4, 4))

    def hbm_zeros(a):
        return nl.zeros((4, 4), nl.float32, buffer=nl.shared_hbm)

    with pytest.raises(SyntaxError, match="^Creating HBM tensor with init value is not supported.$"):
        nki.simulate_kernel(hbm_zeros, rand(4, 4))


# -- what is recorded rather than raised ------------------------------------------------------------------
def test_undefined_psum_reaching_the_output_is_recorded_and_is_nan() -> None:
    def body(a_t, b):
        out = nl.ndarray((8, 16), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.ndarray((8, 16), nl.float32, buffer=nl.psum)
        acc += nl.matmul(nl.load(a_t), nl.load(b), transpose_x=True)
        nl.store(out, value=nl.copy(acc))
        return out

    out = nki.simulate_kernel(body, rand(4, 8), rand(4, 16))
    assert np.isnan(out).all()
    assert kinds() == ["uninit_read"] and RECORDER.events[0]["count"] == 128


def test_garbage_rows_computed_but_never_stored_are_not_reported() -> None:
    def body(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.arange(128)[:, None], nl.arange(a.shape[1])[None, :]
        tile = nl.load(a[i_p, i_f], mask=(i_p < a.shape[0]))
        nl.store(out[i_p, i_f], value=nl.exp(tile), mask=(i_p < a.shape[0]))
        return out

    a = rand(100, 8)
    np.testing.assert_allclose(nki.simulate_kernel(body, a), np.exp(a), rtol=1e-6)
    assert kinds() == []


def test_unwritten_output_elements_are_recorded() -> None:
    def body(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out[0:2, 0:4], value=nl.load(a[0:2, 0:4]))
        return out

    out = nki.simulate_kernel(body, rand(4, 4))
    assert np.isnan(out[2:]).all() and kinds() == ["unwritten_output"] and RECORDER.events[0]["count"] == 8

    def never(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for _ in nl.affine_range(0):
            nl.store(out, value=nl.load(a))
        return out

    with pytest.raises(SyntaxError, match="was never written to"):
        nki.simulate_kernel(never, rand(4, 4))
    RECORDER.reset()
    assert nki.simulate_kernel(never, rand(4, 0)).shape == (4, 0)  # nothing to write: not a defect
    assert kinds() == []


def test_affine_loop_reading_a_previous_iteration_is_recorded_and_sequential_is_not() -> None:
    def scan(a, loop):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        buf = nl.zeros((4, 4), nl.float32, buffer=nl.sbuf)
        for i in loop(1, 4):
            buf[:, i:i + 1] = nl.add(buf[:, i - 1:i], nl.load(a[:, i:i + 1]))
        nl.store(out, value=buf)
        return out

    a = rand(4, 4)
    nki.simulate_kernel(scan, a, nl.affine_range)
    assert kinds() == ["race"] and "iteration 2 reads what iteration 1 wrote" in RECORDER.events[0]["message"]
    RECORDER.reset()
    nki.simulate_kernel(scan, a, nl.sequential_range)
    assert kinds() == [] and RECORDER.snapshot()["loops"][0]["carried"]


def test_affine_loop_writing_the_same_elements_raises_the_documented_error() -> None:
    def body(a):
        t = nl.ndarray((4, 4), nl.float32, buffer=nl.sbuf)
        for i in nl.affine_range(2):
            t[0:4, 0:1] = 0.0
        return a

    with pytest.raises(SyntaxError, match="^Unexpected output dependencies: different iterations of nl.affine_range"):
        nki.simulate_kernel(body, rand(4, 4))


def test_spmd_grid_shares_the_output_and_checks_programs_like_affine_iterations() -> None:
    @nki.jit
    def kernel(a, b):
        c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p = nl.program_id(0) * 128 + nl.arange(128)[:, None]
        i_f = nl.program_id(1) * 64 + nl.arange(64)[None, :]
        nl.store(c[i_p, i_f], value=nl.load(a[i_p, i_f]) + nl.load(b[i_p, i_f]))
        return c

    a, b = rand(256, 128), rand(256, 128) + 1
    np.testing.assert_allclose(kernel[2, 2](a, b), a + b)
    assert RECORDER.launches[-1]["grid"] == [2, 2] and kinds() == []

    @nki.jit
    def racy(a):
        c = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(c, value=nl.load(a[0:128, 0:64]))
        return c

    with pytest.raises(SyntaxError, match="different iterations of the SPMD grid write"):
        racy[2](a)


def races() -> list[dict]:
    return [e for e in RECORDER.events if e["kind"] == "race"]


def test_affine_iteration_overwriting_what_an_earlier_iteration_read_is_a_race() -> None:
    """In-place adjacent difference: iteration i reads column i+1, which iteration i+1 overwrites (a
    write-after-read the sequential run orders correctly); sequential_range is clean."""
    def diff(a, loop):
        out = nl.ndarray((4, 3), dtype=a.dtype, buffer=nl.shared_hbm)
        buf = nl.load(a)
        for i in loop(3):
            buf[:, i:i + 1] = nl.subtract(buf[:, i + 1:i + 2], buf[:, i:i + 1])
        nl.store(out, value=buf[:, 0:3])
        return out

    a = rand(4, 4)
    np.testing.assert_allclose(nki.simulate_kernel(diff, a, nl.affine_range), np.diff(a, axis=1), rtol=1e-6)
    [race] = races()
    line = diff.__code__.co_firstlineno + 4
    assert race["accesses"] == "read/write" and race["loop_kind"] == "affine" and race["line"] == line
    assert race["first_site"]["instance"] == "iteration 0" and race["second_site"]["instance"] == "iteration 1"
    assert race["first_site"]["line"] == line and race["element"] == [0, 1] and race["count"] == 4
    assert "iteration 1 overwrites what iteration 0 read" in race["message"]
    RECORDER.reset()
    nki.simulate_kernel(diff, a, nl.sequential_range)
    assert races() == []


def test_spmd_programs_merging_into_one_row_race_and_name_both_programs() -> None:
    """Each program adds its column block's row sums into the same output rows with load + add + store:
    program 1 reads what program 0 stored (race), then stores over it (race, and the documented
    output-dependency error)."""
    @nki.jit
    def rowsum(a):
        out = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        pid = nl.program_id(0)
        part = nl.sum(nl.load(a[0:128, pid * 64:(pid + 1) * 64]), axis=1, keepdims=True)
        if pid == 0:
            nl.store(out, value=part)
        else:
            nl.store(out, value=nl.add(nl.load(out), part))
        return out

    first = rowsum.fn.__code__.co_firstlineno
    with pytest.raises(SyntaxError, match=r"different iterations of the SPMD grid write .* \(program \(0,\) at "
                                          rf"line {first + 6}, program \(1,\) at line {first + 8}\)"):
        rowsum[2](rand(128, 128))
    raw, waw = races()
    assert raw["accesses"] == "write/read" and raw["loop_kind"] == "spmd"
    assert (raw["first_site"]["program"], raw["second_site"]["program"]) == ([0], [1])
    assert (raw["first_site"]["line"], raw["line"]) == (first + 6, first + 8)
    assert "program (1,) reads what program (0,) wrote" in raw["message"]
    assert waw["accesses"] == "write/write"


def test_accumulation_and_disjoint_programs_are_not_races() -> None:
    """``+=`` into PSUM across affine iterations (the documented associative reduction),
    ``dma_copy(dst_rmw_op=np.add)`` accumulating in an affine loop, and SPMD programs on disjoint
    tiles of one shared output."""
    @nki.jit
    def matmul(lhsT, rhs):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(2):
            acc += nl.matmul(nl.load(lhsT[k * 128:(k + 1) * 128, :]), nl.load(rhs[k * 128:(k + 1) * 128, :]),
                             transpose_x=True)
        nl.store(out, value=nl.copy(acc))
        return out

    a, b = rand(256, 128), rand(256, 512)
    np.testing.assert_allclose(matmul(a, b), a.T @ b, rtol=1e-4, atol=1e-4)

    @nki.jit
    def colsum(a):
        acc = nl.zeros((128, 64), nl.float32, buffer=nl.sbuf)
        for j in nl.affine_range(4):
            nisa.dma_copy(dst=acc, src=a[0:128, j * 64:(j + 1) * 64], dst_rmw_op=np.add)
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=acc)
        return out

    c = rand(128, 256)
    np.testing.assert_allclose(colsum(c), c.reshape(128, 4, 64).sum(1), rtol=1e-5, atol=1e-5)

    @nki.jit
    def rows(a):
        out = nl.ndarray((256, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        pid = nl.program_id(0)
        nl.store(out[pid * 128:(pid + 1) * 128, :], value=nl.sum(nl.load(a[pid * 128:(pid + 1) * 128, :]), axis=1,
                                                                   keepdims=True))
        return out

    np.testing.assert_allclose(rows[2](c[:, :128].repeat(2, 0)), c[:, :128].repeat(2, 0).sum(1, keepdims=True),
                               rtol=1e-5, atol=1e-4)
    assert races() == [] and kinds() == []


def test_sbuf_over_capacity_is_recorded_and_a_single_oversized_tile_raises() -> None:
    def pressure(a):
        tiles = [nl.zeros((128, 16384), nl.float32, buffer=nl.sbuf) for _ in range(4)]
        assert len(tiles) == 4
        return a

    nki.simulate_kernel(pressure, rand(2, 2))
    assert kinds() == ["sbuf_pressure"]

    def huge(a):
        return nl.zeros((128, 65536), nl.float32, buffer=nl.sbuf)

    with pytest.raises(SyntaxError, match="more than the 196608 bytes"):
        nki.simulate_kernel(huge, rand(2, 2))


def test_python_range_runs_as_a_sequential_loop() -> None:
    @nki.jit
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in range(2):
            nl.store(out[i * 2:(i + 1) * 2, 0:4], value=nl.load(a[i * 2:(i + 1) * 2, 0:4]))
        return out

    a = rand(4, 4)
    np.testing.assert_array_equal(kernel(a), a)
    [loop] = RECORDER.snapshot()["loops"]
    assert loop["kind"] == "range" and loop["trips"] == 2 and not loop["carried"]


# -- numerics and types -----------------------------------------------------------------------------------
def test_documented_type_promotion() -> None:
    def body(x, y):
        return nl.add(nl.load(x), nl.load(y)), nl.multiply(nl.load(y), 1.5), nl.add(nl.load(x), nl.load(y),
                                                                                     dtype=nl.bfloat16)

    bf = np.ones((2, 2), dtype=ml_dtypes.bfloat16)
    f16 = np.ones((2, 2), dtype=np.float16)
    a, b, c = nki.simulate_kernel(lambda x, y: [nl.store(o := nl.ndarray((2, 2), t.dtype, buffer=nl.shared_hbm),
                                                         value=t) or o for t in body(x, y)], bf, f16)
    assert a.dtype == np.float32 and b.dtype == np.float32 and c.dtype == np.dtype(ml_dtypes.bfloat16)


def test_torch_bf16_round_trip_and_fp32_psum_accumulation() -> None:
    @nki.jit
    def kernel(a_t, b):
        out = nl.ndarray((a_t.shape[1], b.shape[1]), dtype=a_t.dtype, buffer=nl.shared_hbm)
        acc = nl.zeros((a_t.shape[1], b.shape[1]), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(a_t.shape[0] // 128):
            acc += nisa.nc_matmul(nl.load(a_t[k * 128:(k + 1) * 128, :]), nl.load(b[k * 128:(k + 1) * 128, :]))
        nl.store(out, value=nl.copy(acc, dtype=out.dtype))
        return out

    g = torch.Generator().manual_seed(0)
    a_t = torch.randn(256, 64, generator=g).to(torch.bfloat16)
    b = torch.randn(256, 32, generator=g).to(torch.bfloat16)
    out = kernel(a_t, b)
    assert out.dtype == torch.bfloat16 and out.shape == (64, 32)
    expected = (a_t.float().T @ b.float()).to(torch.bfloat16)
    torch.testing.assert_close(out, expected, rtol=1.6e-2, atol=1e-2)


@pytest.mark.parametrize(("name", "ref"), [
    ("exp", np.exp), ("tanh", np.tanh), ("relu", lambda x: np.maximum(x, 0)),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("rsqrt", lambda x: 1 / np.sqrt(np.abs(x) + 1)),
    ("gelu", lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
])
def test_activations(name: str, ref) -> None:
    x = rand(8, 16)
    if name == "rsqrt":
        x = np.abs(x) + 1
        ref = lambda v: 1 / np.sqrt(v)
    got = nki.simulate_kernel(lambda a: _store(getattr(nl, name)(nl.load(a))), x)
    np.testing.assert_allclose(got, ref(x), rtol=2e-3 if name == "gelu" else 1e-5, atol=1e-3 if name == "gelu" else 1e-6)


def _store(tile):
    out = nl.ndarray(tile.shape, tile.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=tile)
    return out


def test_reductions_keep_the_partition_axis_and_broadcast_back() -> None:
    x = rand(16, 32)
    got = nki.simulate_kernel(lambda a: _store(nl.subtract(nl.load(a), nl.max(nl.load(a), axis=[1]))), x)
    np.testing.assert_allclose(got, x - x.max(axis=1, keepdims=True), rtol=1e-6)
    sm = nki.simulate_kernel(lambda a: _store(nl.softmax(nl.load(a), axis=1)), x)
    np.testing.assert_allclose(sm, np.exp(x) / np.exp(x).sum(axis=1, keepdims=True), rtol=1e-5)


def test_masked_reduction_reads_only_the_active_columns() -> None:
    def body(a):
        i_p, i_f = nl.arange(8)[:, None], nl.arange(16)[None, :]
        t = nl.load(a[i_p, i_f], mask=(i_f < 10))
        return _store(nl.sum(t, axis=[1], mask=(i_f < 10)))

    x = rand(8, 16)
    np.testing.assert_allclose(nki.simulate_kernel(body, x), x[:, :10].sum(axis=1, keepdims=True), rtol=1e-5)
    assert kinds() == []


def test_isa_instructions() -> None:
    x = rand(32, 32)

    def body(a):
        t = nl.load(a)
        tr = nl.copy(nisa.nc_transpose(t))
        io = nisa.iota(nl.arange(8)[None, :] + 8 * nl.arange(4)[:, None], dtype=nl.int32)
        ms = nisa.memset((4, 8), 3.0, nl.float32)
        act = nisa.activation(op=np.exp, data=t, scale=2.0)
        red = nisa.tensor_reduce(np.max, t, axis=[1], keepdims=True)
        ts = nisa.tensor_scalar(t, np.multiply, 2.0, op1=np.add, operand1=1.0)
        tt = nisa.tensor_tensor(t, t, op=np.subtract)
        dst = nl.ndarray((32, 32), nl.float32, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=dst, src=t)
        return [_store(v) for v in (tr, io, ms, act, red, ts, tt)] + [dst]

    tr, io, ms, act, red, ts, tt, dst = nki.simulate_kernel(body, x)
    np.testing.assert_array_equal(tr, x.T)
    np.testing.assert_array_equal(io, np.arange(32).reshape(4, 8))
    np.testing.assert_array_equal(ms, np.full((4, 8), 3.0))
    np.testing.assert_allclose(act, np.exp(2 * x), rtol=1e-6)
    np.testing.assert_array_equal(red, x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(ts, 2 * x + 1, rtol=1e-6)
    np.testing.assert_array_equal(tt, np.zeros_like(x))
    np.testing.assert_array_equal(dst, x)


def test_mgrid_named_components_index_like_the_tutorials() -> None:
    def body(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        g = nl.mgrid[0:4, 0:8]
        nl.store(out[g.p, g.x], value=nl.load(a[g.p, g.x]))
        return out

    a = rand(4, 8)
    np.testing.assert_array_equal(nki.simulate_kernel(body, a), a)


def test_unsupported_features_say_so() -> None:
    with pytest.raises(NkiUnsupported, match=UNSUPPORTED_MARK):
        nl.atomic_rmw  # noqa: B018
    assert not hasattr(nisa, "local_gather")
    with pytest.raises(RuntimeError, match="Calling NKI API outside of NKI kernels is not supported"):
        nl.ndarray((2, 2), nl.float32)
