"""Shared-memory bank-conflict estimate (tools/compiled_code/smem.py) on PTX nvcc wrote for the classic
transpose tile (tests/data/compiled_code/transpose.cu): ``tile[32][32]`` read down a column is a 32-way
conflict, ``tile[32][33]`` is conflict-free; plus the phase rule on hand-made addresses."""

from __future__ import annotations

from tests.conftest import DATA
from tools.compiled_code.review import CompiledReview, shared_bank_conflicts
from tools.compiled_code.smem import conflict_degree, shared_accesses

PTX = DATA / "compiled_code"


def test_unpadded_transpose_tile_reads_a_column_with_a_32_way_conflict() -> None:
    store, load = shared_accesses((PTX / "transpose_conflict.ptx").read_text())
    assert (store.kind, store.degree, store.line) == ("store", 1, 10)  # a row: lanes on consecutive words
    assert (load.kind, load.width_bytes, load.degree, load.line, load.file) == ("load", 4, 32, 14, "transpose.cu")
    assert load.words[:3] == (0, 32, 64)
    review = CompiledReview(kernel="transpose", target="sm_80")
    shared_bank_conflicts((PTX / "transpose_conflict.ptx").read_text(), review)
    (concern,) = review.concerns
    assert concern.code == "bank_conflict" and concern.source_line == 14 and "32-way" in concern.message
    assert concern.quotes[0].ir == "ptx" and "ld.shared.f32" in concern.quotes[0].text


def test_padded_transpose_tile_is_conflict_free() -> None:
    accesses = shared_accesses((PTX / "transpose_padded.ptx").read_text())
    assert [a.degree for a in accesses] == [1, 1] and accesses[1].words[:3] == (0, 33, 66)
    review = CompiledReview(kernel="transpose", target="sm_80")
    shared_bank_conflicts((PTX / "transpose_padded.ptx").read_text(), review)
    assert review.concerns == [] and len(review.shared_accesses) == 2


def test_phases_and_broadcast() -> None:
    assert conflict_degree([0] * 32, 4) == 1  # one word for every lane: a broadcast
    assert conflict_degree([4 * 32 * i for i in range(32)], 4) == 32
    assert conflict_degree([8 * i for i in range(32)], 8) == 1  # 64-bit: half-warps, 32 words each
    assert conflict_degree([16 * i for i in range(32)], 16) == 1  # 128-bit: quarter-warps
    assert conflict_degree([8 * i for i in range(32)], 4) == 2  # stride 2 words: 2-way


def test_unknown_addresses_get_no_degree() -> None:
    ptx = ("ld.param.u32 %r1, [k_param_0];\n"
           "mov.u32 %r2, %tid.x;\n"
           "mad.lo.s32 %r3, %r2, %r1, 0;\n"
           "ld.shared.f32 %f1, [%r3];\n")
    (a,) = shared_accesses(ptx)
    assert a.degree is None and a.words == ()


def test_two_way_conflicts_are_recorded_but_no_concern() -> None:
    ptx = "mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 3;\nld.shared.f32 %f1, [%r2];\n"  # stride 2 words
    review = CompiledReview(kernel="k", target="sm_90")
    shared_bank_conflicts(ptx, review)
    assert review.shared_accesses[0]["degree"] == 2 and review.concerns == []
