"""Every bundled example gets the overall verdict a user expects, so a change that breaks one
framework's review cannot land: correct examples are accepted or left to a human (criteria this
machine cannot check stay unverified), buggy ones are rejected for the defect they carry.

Kept as fast as it can be for CI (about 5 min on a loaded 2-core machine, under a minute on an
idle one with -n 2): one review per example with the tools that decide these verdicts (builds,
correctness on one seed; the integrity probes for the correct ones, the criterion that wrongly
rejected the Pallas example; the TPU interpreter for the buggy Pallas one) and nothing else; the other tools per framework are pinned by their own tests
(test_pallas_examples.py, test_nki_kernels.py, test_cuda_backend.py). Without a GPU, CUDA examples
cannot run: both are needs_human with builds unverified (never a pass, never a reject for the
environment); with a GPU the buggy one must be rejected for correctness.
"""

from __future__ import annotations

import pytest
import torch

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.conftest import EXAMPLES

TOOLS = ["builds", "correctness", "integrity_static", "integrity_runtime"]
OK = {"accept", "needs_human"}
# example -> (allowed overall verdicts, the criterion its defect fails; None for a correct one)
WANT: dict[str, tuple[set[str], str | None]] = {
    "softmax_triton": (OK, None),
    "gelu_triton_buggy": ({"reject"}, "correctness"),
    "gpumode_vectoradd": (OK, None),
    "rowsum_pallas": (OK, None),
    "rowsum_pallas_buggy": ({"reject"}, "correctness"),  # a cross-core race: the TPU interpreter shows it
    "nki_matmul": (OK, None),
    "nki_matmul_buggy": ({"reject"}, "correctness"),
    "nki_rmsnorm": (OK, None),
    "nki_rmsnorm_buggy": ({"reject"}, "correctness"),
    "nki_tensor_add": (OK, None),
    "nki_tensor_add_buggy": ({"reject"}, "builds"),  # its out-of-bounds tile raises on the first call
    "scaled_add_cuda": (OK, None),
    "fused_softmax_tutorial": (OK, None),  # written as Triton's tutorial is: driver API, warmup-sized grid
    # three implementations of one task for `kreview compare` (two frameworks), all correct
    "compare_rowsum/pallas_blocks": (OK, None),
    "compare_rowsum/triton_column_walk": (OK, None),
    "compare_rowsum/triton_row_blocks": (OK, None),
    "scaled_add_cuda_buggy": ({"reject"} if torch.cuda.is_available() else {"needs_human"},
                              "correctness" if torch.cuda.is_available() else None),
}


def test_every_example_is_pinned() -> None:
    # a submission directory is an example's folder, or a folder one level down (compare_rowsum/*)
    subs = {p.parent.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.glob("*/submission.py")}
    subs |= {p.parent.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.glob("*/*/submission.py")}
    assert sorted(WANT) == sorted(subs)


@pytest.mark.parametrize("name", sorted(WANT))
def test_example_overall_verdict(name: str, config: ReviewConfig) -> None:
    allowed, defect = WANT[name]
    # a buggy example is rejected by the tools that see its defect (integrity is pinned on the
    # correct ones); the Pallas one's defect shows only under the TPU interpreter (sanitizers)
    tools = TOOLS if defect is None else ["builds", "correctness"]
    if name.endswith("pallas_buggy"):
        tools = [*tools, "sanitizers"]
    review = start_review(EXAMPLES / name, config.model_copy(update={"only": tools, "seeds": 1}))
    verdicts = {c.id: c.verdict for c in review.criteria}
    notes = [(e.id, e.outcome, e.summary[:200]) for e in review.evidence if e.outcome in ("fail", "unverified")]
    assert review.overall in allowed, (review.overall, verdicts, notes)
    failed = {k for k, v in verdicts.items() if v == "fail"}
    if defect is None:
        assert not failed, notes  # a correct example fails nothing, integrity included
    else:
        assert defect in failed, (verdicts, notes)
        # rejected for its defect, not for a false integrity finding on the way
        assert verdicts.get("integrity") != "fail", notes
