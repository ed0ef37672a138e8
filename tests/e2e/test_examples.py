"""Every bundled example gets the overall verdict a user expects, so a change that breaks one
framework's review cannot land: correct examples are accepted or left to a human (criteria this
machine cannot check stay unverified), buggy ones are rejected for the defect they carry. What to
expect is the example's own ``Expect:`` line (``Expect on CPU:`` without a GPU): its builds,
correctness and integrity verdicts, its overall verdict where it names one, and the criteria it names
as failing (none: a correct example, which must fail nothing).

Kept as fast as it can be for CI (about 5 min on a loaded 2-core machine, under a minute on an
idle one with -n 2): one review per example with the tools that decide these verdicts (builds,
correctness on one seed; for the correct ones the integrity probes, the criterion that wrongly
rejected the Pallas example, and the numerics probes, which rejected two of them unseen (a float16
row sum accumulated in its float16 output block, float16 squares summed in float16); the TPU
interpreter for the buggy Pallas one) and nothing else; the other tools per framework are pinned by their own tests
(the pallas_examples and nki_examples corpora of test_kernel_verdicts.py, tools/test_cuda.py). Without a GPU, CUDA examples
cannot run: both are needs_human with builds unverified (never a pass, never a reject for the
environment); with a GPU the buggy one must be rejected for correctness.
"""

from __future__ import annotations

import pytest
import torch

from reviewer.core.config import ReviewConfig
from tests.conftest import EXAMPLES
from tests.e2e.tools.test_integrity import EXAMPLE_TOOLS
from tests.kernelfiles import expectations
from tests.reviewcache import ReviewCache

OK = {"accept", "needs_human"}
# the criteria these tools decide: what of an example's Expect line this review can confirm (a line may
# also name criteria another corpus's tools decide, e.g. generality for the Pallas example)
DECIDED = {"builds", "correctness", "integrity"}
# a submission directory is an example's folder, or a folder one level down (compare_rowsum/*)
NAMES = sorted({p.parent.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.glob("*/submission.py")}
               | {p.parent.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.glob("*/*/submission.py")})


def want(name: str) -> dict[str, str]:
    """The example's Expect line (its Expect on CPU line where this machine has no GPU)."""
    return expectations(EXAMPLES / name / "submission.py", on_cpu=not torch.cuda.is_available())


def test_every_example_states_its_verdicts() -> None:
    assert len(NAMES) >= 17 and all(want(name) for name in NAMES)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_example_overall_verdict(name: str, config: ReviewConfig, reviews: ReviewCache) -> None:
    expected = want(name)
    defects = {k for k, v in expected.items() if v == "fail"}  # none: a correct example
    allowed = {expected["overall"]} if "overall" in expected else ({"reject"} if defects else OK)
    # a buggy example is rejected by the tools that see its defect (integrity is pinned on the
    # correct ones); the Pallas one's defect shows only under the TPU interpreter (sanitizers)
    tools = EXAMPLE_TOOLS if not defects else ["builds", "correctness"]
    if name.endswith("pallas_buggy"):
        tools = [*tools, "sanitizers"]
    # the same review as tests/e2e/tools/test_integrity.py's of the correct examples (shared per session)
    review = reviews.review(EXAMPLES / name, config.model_copy(update={"only": tools, "seeds": 1}))
    verdicts = {c.id: c.verdict for c in review.criteria}
    notes = [(e.id, e.outcome, e.summary[:200]) for e in review.evidence if e.outcome in ("fail", "unverified")]
    assert review.overall in allowed, (review.overall, verdicts, notes)
    decided = {k: v for k, v in expected.items() if k in DECIDED}
    assert {k: verdicts.get(k) for k in decided} == decided, notes
    failed = {k for k, v in verdicts.items() if v == "fail"}
    if not defects:
        assert not failed, notes  # a correct example fails nothing, integrity included
    else:
        assert defects <= failed, (verdicts, notes)
        # rejected for its defect, not for a false integrity finding on the way
        assert verdicts.get("integrity") != "fail", notes
        # a value mismatch is placed where the kernel computes what it stores: for the Python kernels the
        # lines of the formula (a CUDA example's mismatch, on a GPU, is placed in its load_inline source)
        mismatches = [e for e in review.evidence if e.tool == "correctness" and e.outcome == "fail"
                      and e.defect == "mismatch" and e.result.get("basis", "tolerance") != "structure"]
        source = (EXAMPLES / name / "submission.py").read_text().splitlines()
        for e in mismatches:
            assert e.spans, (e.id, e.summary)
            for s in e.spans:
                assert s.quote == "\n".join(source[s.start_line - 1:s.end_line]), (e.id, s)
        if name == "gelu_triton_buggy":  # its defect, the tanh approximation's formula, is among the lines named
            assert mismatches and all(any("0.044715" in s.quote for s in e.spans) for e in mismatches)
