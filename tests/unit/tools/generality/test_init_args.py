"""The init-args axis's plan (tools/generality/init_args.py) and its child-side half (Case.init_args,
tools/engine/harness/kernelbench.py:override_init): which hyper-parameters vary, to what, in how many
cases, and that the case a rerun pastes carries them."""

from __future__ import annotations

import json

import pytest

from tools.engine.harness.case import Case
from tools.engine.harness.kernelbench import override_init
from tools.generality.init_args import (
    ALL,
    MAX_CASES,
    generator_args,
    init_param_names,
    kernelbench_args,
    varied_value,
    variants,
)

REFERENCE = '''
import torch.nn as nn

class Helper(nn.Module):
    def __init__(self, other): ...

class Model(nn.Module):
    def __init__(self, alpha: float = 1.0, dim: int = 1, eps=1e-5):
        super().__init__()

def get_init_inputs():
    return [1.0, 1, 1e-5]
'''


@pytest.mark.parametrize("nominal", [1.0, 0.01, 1e-5, 0.0, -1.0, -0.5, 2.0, 100.0])
def test_varied_value_keeps_the_sign_and_moves_clearly(nominal: float) -> None:
    v = varied_value(nominal)
    assert (v >= 0) == (nominal >= 0)
    assert abs(v - nominal) >= 0.25
    assert varied_value(nominal) == v  # a rule, not a draw: the same plan every time


def test_varied_values_of_common_hyper_parameters() -> None:
    assert varied_value(1.0) == 1.75  # ELU alpha
    assert varied_value(0.01) == 0.265  # LeakyReLU slope
    assert varied_value(-1.0) == -1.75  # a lower clamp bound stays below zero


def test_names_come_from_model_init_by_position() -> None:
    assert init_param_names(REFERENCE) == ["alpha", "dim", "eps"]
    assert init_param_names(REFERENCE, "Missing") == []
    assert init_param_names("def broken(:") == []


def test_kernelbench_args_are_the_float_entries_only() -> None:
    # the child reports only finite Python floats; ints (dims, sizes) and bools never appear
    args = kernelbench_args({"2": 1e-5, "0": 1.0}, ["alpha", "dim", "eps"])
    assert [(a.key, a.name, a.nominal, a.varied) for a in args] == [("0", "alpha", 1.0, 1.75),
                                                                   ("2", "eps", 1e-5, 0.250015)]
    assert args[0].describe() == "alpha=1.75 (nominal 1.0)"
    # an entry past the named parameters (*args) is named by its position
    (extra,) = kernelbench_args({"3": 0.5}, ["alpha"])
    assert extra.name == "get_init_inputs()[3]"
    assert kernelbench_args({"0": float("nan")}, []) == []


def test_generator_args_are_float_kwargs_except_seed() -> None:
    args = generator_args({"size": 1024, "seed": 4.0, "eps": 1e-6, "causal": True, "scale": -0.5})
    assert [(a.key, a.varied) for a in args] == [("eps", 0.250001), ("scale", -1.0)]


def test_variants_are_counted() -> None:
    one = kernelbench_args({"0": 1.0}, ["alpha"])
    assert list(variants(one)) == ["alpha"]
    two = kernelbench_args({"0": 1.0, "1": 0.5}, ["alpha", "beta"])
    assert list(variants(two)) == ["alpha", "beta"] and MAX_CASES == 2
    many = kernelbench_args({"0": 1.0, "1": 0.5, "2": 0.1}, ["a", "b", "c"])
    assert list(variants(many)) == [ALL] and [a.name for a in variants(many)[ALL]] == ["a", "b", "c"]
    assert variants([]) == {}


def test_override_init_replaces_floats_only() -> None:
    assert override_init([1.0, 16, 1e-5], {0: 1.75, 2: 0.25}) == [1.75, 16, 0.25]
    assert override_init([1.0], {}) == [1.0]
    with pytest.raises(TypeError, match=r"\[1\] is int"):
        override_init([1.0, 16], {1: 2.5})
    with pytest.raises(TypeError, match="bool"):
        override_init([True], {0: 2.5})
    with pytest.raises(IndexError):
        override_init([], {0: 1.75})


def test_case_with_init_args_round_trips_through_its_rerun_spec() -> None:
    case = Case(id="generality-init-args", seed=3, init_args={0: 1.75})
    spec = case.spec()
    assert json.loads(spec)["init_args"] == {"0": 1.75}
    assert Case.model_validate_json(spec).init_args == {0: 1.75}
    # a case without init args spells its rerun exactly as before the field existed
    assert "init_args" not in Case(id="x", seed=3).spec()


def _axis(fmt: str, meta: dict, params: dict):
    """init_args_axis on stand-ins for the review context and the nominal run (no child is started)."""
    from types import SimpleNamespace

    from tools.generality.axes import init_args_axis

    base_case = Case(id="probes-0", seed=7, params=dict(params))
    ctx = SimpleNamespace(submission=SimpleNamespace(format=fmt), source=SimpleNamespace(reference=REFERENCE))
    base = SimpleNamespace(case=base_case, evaluation=SimpleNamespace(ref=SimpleNamespace(meta=meta)))
    return init_args_axis(ctx, base, params)


def test_kernelbench_axis_varies_constructor_floats_by_position() -> None:
    axis = _axis("kernelbench", {"init_floats": {"0": 1.0, "2": 1e-5}}, {"batch": 4})
    assert axis is not None and axis.name == "init_args"
    assert axis.dims[0].values == [None, "alpha", "eps"] and axis.base == {"init_args": None}
    case = axis.make_case({"init_args": "alpha"})
    # the same seed and sizes as the probe size; only the constructor float changes
    assert (case.seed, case.params, case.init_args, case.id) == (7, {"batch": 4}, {0: 1.75}, "generality-init-args")
    assert case.label == "alpha=1.75 (nominal 1.0)"
    assert axis.make_case(axis.base).init_args == {}
    # no float among the init inputs (or a reference run that did not report them): no axis, no cost
    assert _axis("kernelbench", {"init_floats": {}}, {}) is None
    assert _axis("kernelbench", {}, {}) is None


def test_generator_axis_varies_float_kwargs_through_params() -> None:
    axis = _axis("manifest", {}, {"n": 4096, "slope": 0.01})
    assert axis is not None and axis.dims[0].values == [None, "slope"]
    case = axis.make_case({"init_args": "slope"})
    assert case.params == {"n": 4096, "slope": 0.265} and case.init_args == {}
    assert _axis("gpumode", {}, {"size": 1024, "seed": 5}) is None


def test_varied_values_keep_the_order_of_bounds() -> None:
    # clamp_min/clamp_max (or min_val/max_val) varied in one case stay a valid pair
    pairs = [(-1.0, 1.0), (0.0, 6.0), (0.5, 0.6), (-0.6, -0.5), (-0.1, 0.0)]
    assert all(varied_value(lo) < varied_value(hi) for lo, hi in pairs)
