"""Reading size knobs from sources and turning measurements into 'why' sentences."""

from __future__ import annotations

import torch

from tools.generality import explain
from tools.engine.sizes import candidates, int_kwargs, launch_blocks, size_knobs, source_blocks

REFERENCE = '''
import torch
batch_size = 16
dim = 1000
eps = 1e-5
flag = True
unused = 7
total = batch_size * dim
def get_inputs():
    return [torch.randn(total // dim, dim)]
def get_init_inputs():
    return [eps]
'''


def test_size_knobs_follow_derived_constants_and_skip_non_sizes() -> None:
    assert size_knobs(REFERENCE) == {"batch_size": 16, "dim": 1000}
    assert size_knobs("def broken(:") == {}
    assert int_kwargs({"size": 127, "seed": 4, "flag": True, "scale": 0.5}) == {"size": 127}


def test_blocks_from_source_and_launches() -> None:
    src = "BLOCK = 1024\nx = 3\ny = 48\nsmall = 4\nk[(1,)](BLOCK_M=64)\n"
    assert source_blocks(src) == {1024, 64}
    assert launch_blocks([{"constexprs": {"BLOCK": 4, "FLAG": True, "NAME": "x"}}]) == {4}


def test_candidates_bracket_blocks_and_powers_of_two() -> None:
    vals = candidates(256, {1024})
    assert vals == sorted(vals) and 256 not in vals
    assert {1, 2, 3, 255, 257, 1023, 1025, 513} <= set(vals)
    assert 999 not in candidates(1000, set())  # n-1 only for powers of two
    # a tile and a half of the largest block: the later tile is half full, so state carried across
    # tiles (a running max, a scan's carry) matters there
    assert 1537 in candidates(512, {64, 1024}) and 97 not in candidates(512, {64, 1024})


def test_tuple_constants_give_one_knob_per_element() -> None:
    ref = "batch_size = 16\ninput_shape = (200, 3)\nflags = (1, True)\ndef get_inputs():\n" \
          "    return [torch.randn(batch_size, *input_shape)]\ndef get_init_inputs():\n    return [flags]\n"
    assert size_knobs(ref) == {"batch_size": 16, "input_shape[0]": 200, "input_shape[1]": 3}


def test_tail_fact_flat_and_per_row() -> None:
    e = torch.randn(1000)
    a = e.clone()
    a[768:] = 0
    facts = explain.tail_facts(a, e, [256], None, None)
    assert facts and "last 232 of 1000" in facts[0] and "BLOCK=256" in facts[0] and "left at 0" in facts[0]
    e2 = torch.randn(4, 40)
    a2 = e2.clone()
    a2[:, 32:] += 1.0
    facts = explain.tail_facts(a2, e2, [32], None, None)
    assert facts and "columns 32..39 of 40" in facts[0]
    a3 = e2.clone()
    a3[1, 3] += 1.0  # a mismatch that is not in a tail
    assert explain.tail_facts(a3, e2, [32], None, None) == []


def test_value_patterns() -> None:
    assert "only at its nominal value 256" in explain.value_pattern("cols", [], [1, 13, 255], 256)
    assert explain.value_pattern("cols", [], [1, 13], 256) is None  # two values are not a pattern
    assert "powers of two" in explain.value_pattern("dim", [1, 2, 128, 512], [3, 13, 255], 256)
    assert "multiples of 128" in explain.value_pattern("n", [128, 384, 512], [3, 129, 255], 256)
    up = explain.value_pattern("dim", [1, 5, 255], [257, 513], 256)
    assert "passes up to 256" in up and explain.threshold(up) == 256
    assert explain.value_pattern("dim", [1, 2, 3], [], 256) is None


def test_literal_lines_and_shape_note() -> None:
    src = "a = 1\nB = 256\nc = f(256, 3)\n"
    assert explain.literal_lines(src, 256) == [2, 3]
    assert explain.shape_note([{"shape": [32, 32]}]) is None
    assert explain.shape_note([{"shape": [32, 1]}]) == "input shape(s) 32x1"
