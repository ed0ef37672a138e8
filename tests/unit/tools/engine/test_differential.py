"""tools/engine/differential.py on implementations simulated in-process (the sandbox is replaced by
functions of the case): disagreements found, judged by float64, shrunk sizes first then values."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import torch

import tools.engine.differential as differential
from reviewer.core.models import Evidence
from tools.engine.differential import PORT_PRECISION_FACTOR, Side, SideRun, cases_in, check_case, compare_pair, digest
from tools.engine.harness import transforms
from tools.engine.harness.case import Case

NOMINAL = {"batch": 4, "dim": 64}


def _inputs(case: Case) -> torch.Tensor:
    p = {**NOMINAL, **case.params}
    g = torch.Generator().manual_seed(case.seed)
    x = torch.randn(p["batch"], p["dim"], generator=g).half()
    return transforms.apply([x], case.transforms)[0]


def faithful(x: torch.Tensor) -> torch.Tensor:
    return x.float().sum(-1).half()


def drops_tail(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[-1] // 8 * 8
    return x[:, :n].float().sum(-1).half()


def fp16_steps(x: torch.Tensor) -> torch.Tensor:
    """Rounds the running sum to bfloat16 after every element (within a loose tolerance)."""
    acc = torch.zeros(x.shape[0], dtype=torch.bfloat16)
    for j in range(x.shape[-1]):
        acc = (acc.float() + x[:, j].float()).bfloat16()
    return acc.half()


def _side(name: str, fn, atol: float | None = None, rtol: float | None = None) -> Side:
    ctx = SimpleNamespace(fn=fn, tolerance=lambda: (atol, rtol), submission=SimpleNamespace(dtype=None),
                          source=SimpleNamespace(text="BLOCK = 8\n"))
    return Side(name, ctx)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def one(side: Side, case: Case) -> tuple[SideRun, Any, Any, Any]:
        x = _inputs(case)
        out = side.ctx.fn(x)
        rec = SideRun(name=side.name, status="ok", input_digest=digest([x]), output_digest=digest(out))
        return rec, faithful(x), out, {"inputs": [{"shape": list(x.shape)}]}

    def exact(ctx: Any, case: Case) -> tuple[Any, str]:
        return _inputs(case).double().sum(-1), ""

    monkeypatch.setattr(differential, "_one", one)
    monkeypatch.setattr(differential, "exact_outputs", exact)
    monkeypatch.setattr(differential, "size_knobs_of", lambda ctx, params: {**NOMINAL, **params})


def test_a_dropped_tail_shrinks_to_the_smallest_size_and_simplest_values() -> None:
    a, b = _side("original", faithful), _side("port", drops_tail)
    cases = [Case(id="c0", seed=1), Case(id="c1", seed=1, params={"dim": 100}), Case(id="c2", seed=2, params={"dim": 37})]
    rep = compare_pair(a, b, cases, rng_seed=5, original="original")
    assert (rep.cases_checked, rep.cases_disagreeing, rep.cases_bitwise_equal) == (3, 2, 1)
    assert rep.found_on is not None and rep.found_on["params"] == {"dim": 37}  # the fewer input elements
    chk = rep.smallest
    assert rep.shrunk and chk is not None and chk.disagree and chk.kind == "outputs"
    # smallest: one row, a row shorter than the 8 the port walks, all-ones inputs
    assert chk.case["params"]["batch"] == 1 and chk.case["params"]["dim"] < 8
    assert chk.case["transforms"] == [{"kind": "simplify_values", "args": {"level": "ones"}}]
    assert chk.closer_to_float64 == "original" and "original is closer" in chk.judge
    assert chk.sides[0].float64_max_err == 0.0 and chk.sides[1].float64_max_err > 0
    # the record reproduces: the same case gives the same bits
    again = check_case(a, b, Case.model_validate(chk.case))
    assert [s.output_digest for s in again.sides] == [s.output_digest for s in chk.sides]


def test_faithful_implementations_agree() -> None:
    rep = compare_pair(_side("a", faithful), _side("b", faithful), [Case(id="c", seed=s) for s in (1, 2)], rng_seed=1)
    assert rep.smallest is None and rep.cases_bitwise_equal == 2 and "agree" in rep.summary


def test_precision_loss_within_tolerance_counts_only_against_an_original() -> None:
    a, b = _side("original", faithful, atol=1.0, rtol=0.1), _side("port", fp16_steps, atol=1.0, rtol=0.1)
    case = Case(id="c", seed=3, params={"dim": 256})
    assert not check_case(a, b, case).disagree  # within the loose tolerance of each other
    chk = check_case(a, b, case, precision_factor=PORT_PRECISION_FACTOR)
    assert chk.disagree and chk.kind == "precision" and "original's" in chk.detail


def test_one_side_failing_is_a_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("no")

    real = differential._one

    def one(side: Side, case: Case):
        if side.name == "b":
            rec = SideRun(name="b", status="failed", error="RuntimeError: no", input_digest=digest([_inputs(case)]))
            return rec, None, None, {"inputs": []}
        return real(side, case)

    monkeypatch.setattr(differential, "_one", one)
    chk = check_case(_side("a", faithful), _side("b", boom), Case(id="c", seed=1))
    assert chk.disagree and chk.kind == "failure" and "b fails" in chk.detail


def test_cases_in_reads_correctness_and_generality_cases_once() -> None:
    nominal = Case(id="correctness-0-0", seed=7).model_dump()
    sized = Case(id="generality-sizes", seed=7, params={"dim": 3})
    ev = [Evidence(id="correctness-1", tool="correctness", criteria=["correctness"], outcome="pass", summary="s",
                   inputs={"case": nominal}),
          Evidence(id="generality-1", tool="generality", criteria=["generality"], outcome="pass", summary="s",
                   inputs={"case": nominal}, result={"search": {"tried": [
                       {"config": {"dim": 3}, "verdict": "pass", "case": sized.spec()},
                       {"config": {"dim": 5}, "verdict": "skipped"},
                       {"config": {"dim": 3}, "verdict": "pass", "case": sized.spec()}]}}),
          Evidence(id="numerics-1", tool="numerics", criteria=["numerics"], outcome="pass", summary="s",
                   inputs={"case": Case(id="n", seed=9).model_dump()}),
          # a large grid run only in a window of its programs (interpreter): never an answer, not replayed
          Evidence(id="generality-2", tool="generality", criteria=["generality"], outcome="pass", summary="s",
                   inputs={"case": Case(id="g", seed=7, params={"batch": 65537}).model_dump()},
                   config={"windowed": True})]
    got = cases_in(ev)
    assert [(c.seed, c.params) for c in got] == [(7, {}), (7, {"dim": 3})]


def test_a_deliberate_refusal_is_a_narrower_contract_not_a_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    real = differential._one

    def one(side: Side, case: Case):
        if side.name == "b" and case.params.get("dim", 64) % 8:
            rec = SideRun(name="b", status="refused", error="submission.py:9: ValueError: dim % 8",
                          input_digest=digest([_inputs(case)]))
            return rec, None, None, {"inputs": []}
        return real(side, case)

    monkeypatch.setattr(differential, "_one", one)
    cases = [Case(id="c", seed=1), Case(id="d", seed=1, params={"dim": 7})]
    rep = compare_pair(_side("a", faithful), _side("b", faithful), cases, rng_seed=1)
    assert rep.smallest is None and rep.cases_checked == 1 and rep.cases_refused == {"b": 1}
    assert "b refuses 1 case(s)" in rep.summary and "ValueError" in rep.summary


def test_an_inconclusive_run_is_not_comparable(monkeypatch: pytest.MonkeyPatch) -> None:
    real = differential._one

    def one(side: Side, case: Case):
        if side.name == "b":
            rec = SideRun(name="b", status="inconclusive", error="did not finish within 120s",
                          input_digest=digest([_inputs(case)]))
            return rec, None, None, {"inputs": []}
        return real(side, case)

    monkeypatch.setattr(differential, "_one", one)
    rep = compare_pair(_side("a", faithful), _side("b", faithful), [Case(id="c", seed=1)], rng_seed=1)
    assert rep.smallest is None and rep.cases_checked == 0 and rep.cases_not_comparable == 1


def test_the_replayed_tools_are_those_that_declare_it() -> None:
    from tools.engine.registry import case_sources, tools

    assert case_sources() == ("correctness", "generality")
    assert [n for n, cls in sorted(tools().items()) if cls.replays_cases] == ["correctness", "generality"]
    ev = [Evidence(id="numerics-1", tool="numerics", criteria=["numerics"], outcome="pass", summary="s",
                   inputs={"case": Case(id="n", seed=9).model_dump()})]
    assert cases_in(ev) == []
    assert [c.seed for c in cases_in(ev, tools=("numerics",))] == [9]
