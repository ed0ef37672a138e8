"""Review this kernel and expect these verdicts: the one runner for every known-bad and known-good kernel
file of every corpus.

A corpus is a set of kernel families (folders ``tests/kernels/<family>/``, see tests/kernelfiles.py, or a
bundled example ``examples/<name>/``), the tools its reviews run, and the check its tool adds beyond the
verdicts (the defect it names, the span it quotes, the rerun it offers; those checks live beside the
tool's other tests under tests/e2e/tools/). Every submission file of every family is reviewed once and
must get the verdicts its docstring's ``Expect:`` line names; criteria it does not name are not asserted.

To add a known-bad (or known-good) kernel: put the file in the family folder that has its reference, with
``Expect: criterion=verdict, ..., overall=...`` in its docstring; it is collected here. A new family needs
its folder (reference plus files) and a line in ``CORPORA``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from reviewer.core.config import ReviewConfig
from tests.conftest import EXAMPLES
from tests.e2e.test_verdict_determinism import (
    check_device_dependent_branch,
    check_fp16_reference_overflow,
    check_gpumode_contract,
    check_large_grid,
    check_low_precision_accumulator,
    check_memory_state,
)
from tests.e2e.tools.test_compiled_code import check_compiled_code
from tests.e2e.tools.test_diagnosis import check_diagnosis
from tests.e2e.tools.test_float64_judge import check_float64_judge, float64_tools
from tests.e2e.tools.test_fusion import check_fusion
from tests.e2e.tools.test_generality_init_args import check_init_args
from tests.e2e.tools.test_generality_numerics import TOOLS as PROBE_TOOLS
from tests.e2e.tools.test_generality_numerics import check_generality_numerics
from tests.e2e.tools.test_generality_paths import check_benchmark_only_path
from tests.e2e.tools.test_host_branches import check_host_branches
from tests.e2e.tools.test_integrity import TOOLS as INTEGRITY_TOOLS
from tests.e2e.tools.test_integrity import check_integrity
from tests.e2e.tools.test_memcheck import check_memcheck
from tests.e2e.tools.test_nki import TOOLS as NKI_TOOLS
from tests.e2e.tools.test_nki import check_nki, check_nki_example
from tests.e2e.tools.test_pallas import TOOLS as PALLAS_TOOLS
from tests.e2e.tools.test_pallas import check_pallas, check_pallas_example
from tests.e2e.tools.test_port import TOOLS as PORT_TOOLS
from tests.e2e.tools.test_port import check_port
from tests.e2e.tools.test_resources import check_resources, check_resources_cuda, resources_tools
from tests.e2e.tools.test_tutorial_kernels import check_tutorial_kernel
from tests.kernelfiles import KERNELS, Reviewed, expectations, materialize, submissions
from tests.reviewcache import ReviewCache
from tools.engine.compilers import toolchain

Tools = list[str] | Callable[[Path], list[str]]
Settings = dict[str, Any] | Callable[[Path, ReviewConfig], dict[str, Any]]


@dataclass(frozen=True)
class Corpus:
    """Kernel families reviewed alike: with ``tools`` and the other ``settings`` of the review config (each
    fixed, or chosen per file), and ``check`` on each review after its verdicts."""

    families: tuple[str, ...]
    tools: Tools
    check: Callable[[Reviewed], None] | None = None
    settings: Settings = field(default_factory=dict)
    marks: tuple[pytest.MarkDecorator, ...] = ()

    def config(self, path: Path, base: ReviewConfig) -> ReviewConfig:
        tools = self.tools(path) if callable(self.tools) else self.tools
        settings = self.settings(path, base) if callable(self.settings) else self.settings
        return base.model_copy(update={"only": list(tools), **settings})


def check_explained_fail(run: Reviewed) -> None:
    """A fail is always explained by failing evidence, with a rerun command."""
    for c in run.review.criteria:
        if c.verdict == "fail":
            failing = [e for e in run.review.evidence if e.id in c.evidence and e.outcome == "fail"]
            assert failing and all(e.rerun for e in failing)


def check_scalar_loss(run: Reviewed) -> None:
    """A scalar output that ignores its inputs inside a loose tolerance: caught across seeds (correctness)
    and across input contents (integrity)."""
    if "constant" in run.path.stem:
        defects = {(e.tool, e.defect) for e in run.review.evidence if e.outcome == "fail"}
        assert ("correctness", "constant_output") in defects
        assert ("integrity_runtime", "constant_output") in defects


def check_roofline(run: Reviewed) -> None:
    """A claimed time against the speed-of-light floor of the work the reference counts."""
    review, got, want = run.review, run.got, run.want
    (info,) = [e for e in review.evidence if e.tool == "roofline" and "flop_counter" in e.check]
    assert info.result["work"]["flops"] == 2 * 1024**3
    assert info.result["work"]["read_bytes"] == 2 * 1024 * 1024 * 4
    (claim,) = [e for e in review.evidence if e.tool == "roofline" and e.check == "time vs speed-of-light floor"]
    assert claim.result["bound"]["device"] == "H100"
    assert claim.result["floor_s"] == pytest.approx(2 * 1024**3 / 989.4e12)
    if want["integrity"] == "fail":
        assert claim.defect == "impossible_speed" and set(claim.criteria) == {"integrity", "performance"}
        assert got["performance"] == "fail"
    else:
        assert claim.outcome == "info" and claim.result["ratio_to_floor"] > 1


def check_tiny_outputs(run: Reviewed) -> None:
    """Every reference output below atol: the evidence says the absolute tolerance was vacuous, and the
    relative comparison (or the float64 budget) decided."""
    items = [e for e in run.review.evidence if e.tool == "correctness" and e.check.startswith("compare")]
    assert items and all("vacuous" in e.summary for e in items), [e.summary for e in items]
    outputs = [o for e in items for o in e.result["comparison"]["outputs"]]
    assert outputs and all(o["atol_vacuous"] and o["given_atol"] == 1e-5 for o in outputs)


def check_upcast_reference(run: Reviewed) -> None:
    """A reference that upcasts with .float() still runs in float64 (the judge decides); one that computes in
    NumPy float32 has no float64 run: there a mismatch inside the rounding bound is unverified with its
    numbers and the reason, and one beyond it fails."""
    items = [e for e in run.review.evidence if e.tool == "correctness" and e.check.startswith("compare")]
    assert items
    upcast = run.path.parent.name == "upcast_reference"
    for e in items:
        assert e.result["error_budget"]["available"] is upcast, e.result["error_budget"]
        if upcast and run.want["correctness"] == "pass":
            assert e.result["basis"] == "error_budget", e.summary
        if run.want["correctness"] == "unverified":
            assert e.outcome == "unverified" and e.defect == "float64_unavailable", e.summary
            assert "rounding bound" in e.summary and e.result["basis"] == "rounding_bound"


def check_squares_band(run: Reviewed) -> None:
    """rownorm_fp16: the float16 probe in the band where squares fit and their sums do not decides, judged
    against float64, and confirms the static accumulator finding in every spelling."""
    band = next(e for e in run.review.evidence
                if e.tool == "numerics" and e.inputs.get("case", {}).get("id") == "numerics-float16_squares")
    flagged = [f for f in run.review.findings if f.category == "low_precision_accumulator"]
    if run.path.stem.startswith("good_"):
        assert band.outcome == "pass" and not flagged, (band.summary, [f.message for f in flagged])
        return
    assert band.outcome == "fail" and band.defect == "low_precision_accumulation", band.summary
    assert len(flagged) == 1 and band.id in flagged[0].confirmed_by


def check_cancelling_sum(run: Reviewed) -> None:
    """rowsum_fp16: rows whose halves cancel exactly are summed exactly by an fp32 accumulator (no error at
    all) and confirm the static accumulator finding of an fp16 one, with the numbers."""
    probe = next(e for e in run.review.evidence
                 if e.tool == "numerics" and e.inputs.get("case", {}).get("id") == "numerics-cancelling_sum")
    flagged = [f for f in run.review.findings if f.category == "low_precision_accumulator"]
    (out,) = probe.result["error_budget"]["outputs"]
    if run.path.stem.startswith("good_"):
        assert probe.outcome == "pass" and out["sub_max_err"] == 0.0 and not flagged, probe.summary
        return
    assert probe.outcome == "fail" and probe.defect == "low_precision_accumulation", probe.summary
    assert out["ratio"] > 64 and out["ref_max_err"] <= out["floor"], out
    assert len(flagged) == 1 and probe.id in flagged[0].confirmed_by


def check_domain_edge(run: Reviewed) -> None:
    """kl_div: exact zeros, probed because the reference calls log/kl_div, decide t * log t against xlogy."""
    probe = next(e for e in run.review.evidence
                 if e.tool == "numerics" and e.inputs.get("case", {}).get("id") == "numerics-exact_zero")
    if run.path.stem.startswith("good_"):
        assert probe.outcome == "pass", probe.summary
    else:
        assert probe.outcome == "fail" and probe.defect == "domain_edge", probe.summary


def check_reference_overflow(run: Reviewed) -> None:
    """matmul_leaky_fp16: where the fp16 reference overflows, float64 judges the kernel, also on the NaN and
    inf probes, where the reference's roundings put a correct kernel outside the default tolerance."""
    if not run.path.stem.startswith("good_"):
        return
    judged = [e for e in run.review.evidence if e.tool in ("correctness", "numerics")
              and e.result.get("inexact_reference")]
    assert any(e.inputs.get("case", {}).get("id") == "numerics-nan" for e in judged), \
        [f"{e.id} {e.outcome}: {e.summary}" for e in run.review.evidence]


def check_autotune_pruned(run: Reviewed) -> None:
    """autotune_pruned: the config a failing tl.static_assert removes is named pruned (info), never wrong; a
    surviving wrong config fails."""
    items = [e for e in run.review.evidence if e.tool == "autotune"]
    pruned = [e for e in items if e.defect == "autotune_config_pruned"]
    assert len(pruned) == 1 and pruned[0].outcome == "info" and "BLOCK_N=128" in pruned[0].summary, \
        [f"{e.id} {e.outcome}: {e.summary}" for e in items]
    wrong = [e for e in items if e.outcome == "fail"]
    if run.path.stem.startswith("good_"):
        assert not wrong, [e.summary for e in wrong]
    else:
        assert [e.defect for e in wrong] == ["autotune_config_wrong"] and "BLOCK_N=32" in wrong[0].summary


def check_reduction_path(run: Reviewed) -> None:
    """gpumode_reduction: from a size-1 test the benchmark path of a 1-D reduction (one program per 8,192
    elements) is estimated from its block size and run at 2^20, the smallest size past its threshold; no
    square-root size stands in for it."""
    sizes = next(e for e in run.review.evidence if e.tool == "generality" and e.summary.startswith("sizes"))
    tried = {t["config"]["size"] for t in sizes.result["search"]["tried"]}
    assert (1 << 20) in tried, sorted(tried)
    assert not ({1024, 1025} & tried), sorted(tried)
    if run.want["generality"] == "fail":
        assert sizes.outcome == "fail" and "size=1048576" in sizes.summary, sizes.summary
    else:
        (path,) = sizes.result["search"]["paths"]
        assert sizes.outcome == "pass" and "size=1048576 (nominal 1)" in path["run_at"], sizes.summary


def check_output_dtype(run: Reviewed) -> None:
    """output_dtype: an output allocated in a hard-coded dtype fails on the dtype, named in the summary."""
    failing = [e for e in run.review.evidence if e.tool == "correctness" and e.outcome == "fail"]
    if run.path.stem.startswith("good_"):
        assert not failing, [e.summary for e in failing]
    else:
        assert failing and all("has dtype float32, the reference float16" in e.summary for e in failing)


def check_bool_output(run: Reviewed) -> None:
    """bool_output: a float stored to a bool output without the cast is truncated through int8; the exact
    comparison of the bool output names it (the fixer's store_cast trigger, tests/e2e/test_fix.py)."""
    failing = [e for e in run.review.evidence if e.tool == "correctness" and e.outcome == "fail"]
    if run.path.stem.startswith("good_"):
        assert not failing, [e.summary for e in failing]
    else:
        assert failing and all("integer elements differ" in e.summary for e in failing)


def hang_settings(path: Path, base: ReviewConfig) -> dict[str, Any]:
    # an endless loop: a shorter call limit (the backstop a timed-out call is retried under) is enough
    # evidence of the hang (no retry: it equals the shortest scaled limit), which would otherwise wait
    # out a scaled limit and then the 60 s default on every hanging size
    return {"limits": base.limits.model_copy(update={"call_timeout_s": 10.0})} if "hang" in path.stem else {}


def softmax_plan_tools(path: Path) -> list[str]:
    # the persistent-loop kernel is reviewed as the rerun test reviews it (test_verdict_determinism.py)
    return PROBE_TOOLS if path.stem == "bad_persistent_col_stride" else ["builds", "correctness", "generality"]


def softmax_plan_settings(path: Path, base: ReviewConfig) -> dict[str, Any]:
    return {"budget": 0.15 if path.stem == "bad_persistent_col_stride" else 0.05}


def unless_unexpected(tools: list[str], *optional: str) -> Callable[[Path], list[str]]:
    """``tools``, less the ``optional`` ones whose criterion the file's Expect line does not name (a
    generality search under the Pallas interpreter is most of such a review, and decides no verdict the
    file states: the corpus's check asserts on the other tools)."""
    def pick(path: Path) -> list[str]:
        want = expectations(path)
        return [t for t in tools if t not in optional or t in want]
    return pick


def interpreter_gaps_tools(path: Path) -> list[str]:
    # a TensorDescriptor argument also reaches the resources compile and integrity's launch accounting
    extra = ["resources", "integrity_static", "integrity_runtime"] if "descriptor" in path.stem else []
    return ["builds", "correctness", *extra]


NO_NVCC = pytest.mark.skipif(toolchain.find("nvcc") is None, reason="nvcc is not installed")
SLOW = (pytest.mark.slow,)
GENERATED = ("elementwise", "softmax", "rowsum", "rowmean_loose", "layernorm", "matmul", "matmul_longk")
INTEGRITY = tuple(sorted(p.name for p in KERNELS.glob("integrity_*") if p.is_dir()))
MEMCHECK = tuple(f"memcheck/{p.name}" for p in sorted((KERNELS / "memcheck").iterdir()) if p.is_dir())
ONE_SEED = {"seeds": 1}
PALLAS_SETTINGS = {"seeds": 1, "budget": 0.3}

CORPORA: dict[str, Corpus] = {
    "spine": Corpus(("spine",), ["builds", "correctness"], check_explained_fail, hang_settings),
    "scalar_loss": Corpus(("scalar_loss",), ["builds", "correctness", "integrity_runtime"], check_scalar_loss),
    "generality_numerics": Corpus(GENERATED, PROBE_TOOLS, check_generality_numerics, hang_settings, marks=SLOW),
    "softmax_plan": Corpus(("softmax_plan",), softmax_plan_tools, check_device_dependent_branch, softmax_plan_settings,
                           marks=SLOW),
    "large_grid": Corpus(("large_grid",), ["builds", "correctness", "generality"], check_large_grid, {"budget": 0.2},
                         marks=SLOW),
    "gpumode_contract": Corpus(("gpumode_contract",), ["builds", "correctness", "generality"], check_gpumode_contract,
                               {"budget": 0.3}, marks=SLOW),
    "gpumode_paths": Corpus(("gpumode_paths", "gpumode_paths_unrun"), ["builds", "correctness", "generality"],
                            check_benchmark_only_path, ONE_SEED),
    "host_branches": Corpus(("host_branches",), ["builds", "correctness", "generality"], check_host_branches,
                            {**ONE_SEED, "budget": 0.2}),
    "rms_fp16": Corpus(("rms_fp16",), ["builds", "correctness", "numerics"], check_fp16_reference_overflow,
                       marks=SLOW),
    "mean_fp16": Corpus(("mean_fp16",), ["builds", "correctness", "numerics"], check_low_precision_accumulator,
                        marks=SLOW),
    "output_dtype": Corpus(("output_dtype",), ["builds", "correctness"], check_output_dtype),
    "bool_output": Corpus(("bool_output",), ["builds", "correctness"], check_bool_output),
    "tutorial": Corpus(("tutorial_softmax",), ["builds", "correctness", "autotune"], check_tutorial_kernel,
                       ONE_SEED),
    "integrity": Corpus(INTEGRITY, INTEGRITY_TOOLS, check_integrity, ONE_SEED),
    "compiled_code": Corpus(("compiled_matmul", "compiled_fp8", "compiled_colsum"),
                            ["builds", "resources", "compiled_code"], check_compiled_code),
    "diagnosis": Corpus(("diagnosis",), ["builds", "lowering", "resources", "diagnosis"], check_diagnosis),
    "float64_judge": Corpus(("pallas_matmul", "pallas_matmul_np"), float64_tools, check_float64_judge, ONE_SEED),
    "fusion": Corpus(("fusion",), ["builds", "fusion"], check_fusion),
    "port": Corpus(("port",), PORT_TOOLS, check_port, {"seeds": 1, "budget": 0.3}),
    "memcheck": Corpus(MEMCHECK, ["builds", "correctness", "memcheck"], check_memcheck),
    "memory_state": Corpus(("memory_state",), ["builds", "correctness", "generality", "numerics", "integrity_static",
                                               "integrity_runtime"], check_memory_state, ONE_SEED),
    "nki": Corpus(("nki/add", "nki/matmul", "nki/rmsnorm", "nki/races_diff", "nki/races_rowsum"), NKI_TOOLS, check_nki, ONE_SEED),
    "nki_examples": Corpus(tuple(f"examples/{p.name}" for p in sorted(EXAMPLES.glob("nki_*"))), NKI_TOOLS,
                           check_nki_example, ONE_SEED),
    # a third of the generality budget: every partial-block size these files fail or pass on is still planted
    # (each file's generality verdict checked at 0.3, and their review time is the interpreter's jit per shape)
    "pallas": Corpus(("pallas_rowsum", "pallas_rowsum_int", "pallas_manifest_jnp"),
                     unless_unexpected(PALLAS_TOOLS, "generality"), check_pallas, PALLAS_SETTINGS),
    "pallas_examples": Corpus(("examples/rowsum_pallas", "examples/rowsum_pallas_buggy"),
                              unless_unexpected(PALLAS_TOOLS, "generality"), check_pallas_example, PALLAS_SETTINGS),
    "resources": Corpus(("resources_rows", "resources_matmul"), resources_tools, check_resources),
    "resources_cuda": Corpus(("resources_cuda",), ["builds", "resources"], check_resources_cuda, marks=(NO_NVCC,)),
    "roofline": Corpus(("roofline_impossible", "roofline_plausible"), ["builds", "roofline"], check_roofline),
    "own_packages": Corpus(("own_packages",), ["builds", "correctness"]),
    "gpumode_task_files": Corpus(("gpumode_task_files",), ["builds", "correctness"], settings=ONE_SEED),
    "upcast_reference": Corpus(("upcast_reference", "float32_reference"), ["builds", "correctness"],
                               check_upcast_reference, ONE_SEED),
    "rownorm_fp16": Corpus(("rownorm_fp16",), ["builds", "correctness", "numerics"], check_squares_band, ONE_SEED,
                           marks=SLOW),
    "rowsum_fp16": Corpus(("rowsum_fp16",), ["builds", "correctness", "numerics"], check_cancelling_sum, ONE_SEED,
                          marks=SLOW),
    "kl_div": Corpus(("kl_div",), ["builds", "correctness", "numerics"], check_domain_edge, ONE_SEED, marks=SLOW),
    "matmul_leaky_fp16": Corpus(("matmul_leaky_fp16",), ["builds", "correctness", "numerics"],
                                check_reference_overflow, ONE_SEED),
    "interpreter_gaps": Corpus(("interpreter_gaps",), interpreter_gaps_tools, check_explained_fail, ONE_SEED),
    "autotune_pruned": Corpus(("autotune_pruned",), ["builds", "correctness", "autotune"], check_autotune_pruned,
                              ONE_SEED),
    "gpumode_reduction": Corpus(("gpumode_reduction",), ["builds", "correctness", "generality"],
                                check_reduction_path, ONE_SEED),
    "tiny_outputs": Corpus(("tiny_outputs",), ["builds", "correctness"], check_tiny_outputs, ONE_SEED),
    "init_args": Corpus(("leaky_relu_slope", "leaky_relu_slope_manifest", "init_args_unused"),
                        ["builds", "correctness", "generality"], check_init_args, ONE_SEED),
}
# Families whose files state verdicts but are reviewed elsewhere, with why.
ELSEWHERE = {"llm": "tests/e2e/llm reviews them with a scripted model (the verdicts depend on its answers)",
             "port/original": "the original every port/ file is a port of: run by each port review's port tool"}


def files(family: str) -> list[Path]:
    if family.startswith("examples/"):
        return [EXAMPLES / family.removeprefix("examples/") / "submission.py"]
    return submissions(family)


# every case is a full review (seconds to minutes): all are marked slow, so ``-m "not slow"`` leaves them out
CASES = [pytest.param(name, path, id=f"{family}/{path.stem}" if not family.startswith("examples/") else family,
                      marks=(pytest.mark.slow, *corpus.marks))
         for name, corpus in CORPORA.items() for family in corpus.families for path in files(family)]


@pytest.mark.parametrize(("corpus", "path"), CASES)
def test_kernel_gets_its_verdicts(corpus: str, path: Path, tmp_path: Path, config: ReviewConfig,
                                  reviews: ReviewCache) -> None:
    spec = CORPORA[corpus]
    # a kernel file is reviewed beside its family's reference; a bundled example where it is
    sub = path.parent if path.is_relative_to(EXAMPLES) else materialize(path, tmp_path / "sub")
    # reviewed once per session: other tests that look at the same kernel with the same settings share it
    review = reviews.review(sub, spec.config(path, config))
    run = Reviewed(path=path, sub=sub, review=review, want=expectations(path))
    assert {k: run.got.get(k) for k in run.want} == run.want, \
        [f"{e.id} {e.outcome}: {e.summary}" for e in review.evidence]
    if spec.check is not None:
        spec.check(run)


def test_every_family_is_reviewed_by_one_corpus() -> None:
    listed = [f for corpus in CORPORA.values() for f in corpus.families if not f.startswith("examples/")]
    assert len(listed) == len(set(listed)), sorted(f for f in listed if listed.count(f) > 1)
    on_disk = {p.parent.relative_to(KERNELS).as_posix() for p in KERNELS.rglob("reference.py")}
    assert on_disk - set(ELSEWHERE) == set(listed), (on_disk - set(ELSEWHERE)) ^ set(listed)
    for family in listed:
        for path in files(family):
            assert expectations(path), path  # every file states its verdicts
