"""Planning and judging the grid crossing past 65,535 programs (tools/generality/large_grid.py)."""

from __future__ import annotations

from tools.generality.large_grid import CROSSING, crossings, judge_window


def test_the_row_knob_is_scaled_past_65536_programs_and_the_others_narrowed() -> None:
    launches = [{"kernel": "softmax", "grid": [4, 1, 1]}]
    cands, left_out = crossings(launches, {"batch": 4, "dim": 256}, 1024, 1 << 23)
    first = cands[0]
    assert first.knob == "batch" and first.axis == 0 and first.params == {"batch": CROSSING, "dim": 16}
    assert first.elements == CROSSING * 16
    # dim would need 4.2M columns x 4 rows: over the memory cap, named
    assert any(c.knob == "dim" for c in cands) or any(s.startswith("dim=") for s in left_out)


def test_a_rows_on_y_grid_is_matched_to_its_dimension() -> None:
    cands, _ = crossings([{"kernel": "k", "grid": [1, 8, 1]}], {"rows": 8, "width": 64}, 512, 1 << 23)
    assert (cands[0].knob, cands[0].axis, cands[0].params["rows"]) == ("rows", 1, CROSSING)


def test_crossings_too_large_for_memory_are_left_out_with_the_reason() -> None:
    cands, left_out = crossings([{"kernel": "mm", "grid": [2, 2, 1]}], {"M": 128, "N": 128, "K": 4096},
                                128 * 4096 * 2, 1 << 20)
    assert not [c for c in cands if c.elements > 1 << 20]
    assert left_out and "over the memory cap" in left_out[0]


def _launch(grid: list[int], programs: list[tuple[int, int, str]]) -> dict:
    return {"launches": [{"kernel": "k", "grid": grid, "ran": len(programs), "skipped": 10, "errors": [],
                          "programs": [{"pid": [p, 0, 0], "stores": n, "digest": d} for p, n, d in programs]}]}


def test_judge_window() -> None:
    ok = _launch([65537, 1, 1], [(0, 4, "a"), (1, 4, "b"), (65535, 4, "c"), (65536, 4, "d")])
    assert judge_window(ok).outcome == "pass"
    wrap = _launch([65537, 1, 1], [(0, 4, "a"), (1, 4, "b"), (65535, 4, "c"), (65536, 4, "a")])
    assert judge_window(wrap).defect == "program_id_wrap"
    dropped = _launch([65537, 1, 1], [(0, 4, "a"), (1, 4, "b"), (65535, 4, "c"), (65536, 0, "")])
    v = judge_window(dropped)
    assert v.outcome == "fail" and "stores nothing" in v.summary
    assert judge_window(_launch([1000, 1, 1], [(0, 4, "a")])).outcome == "not_crossed"


def test_int32_index_products_from_a_program_id_are_found_and_int64_casts_are_not() -> None:
    from tools.generality.int32_index import int32_index_products

    text = '''
import triton
import triton.language as tl

@triton.jit
def narrow(x_ptr, y_ptr, x_stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    base = row * x_stride
    x = tl.load(x_ptr + base + offs, mask=offs < n)
    tl.store(y_ptr + row * BLOCK + offs, x)
    k = row * 3

@triton.jit
def wide(x_ptr, x_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x = tl.load(x_ptr + row * x_stride + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.program_id(1).to(tl.int64) * x_stride, x)
'''
    found = [(p.kernel, p.line, p.expression) for p in int32_index_products(text)]
    assert found == [("narrow", 9, "row * x_stride"), ("narrow", 11, "row * BLOCK")]
    assert "2,147,483,648" in int32_index_products(text)[0].message()
