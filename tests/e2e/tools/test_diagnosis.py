"""Failure diagnosis: each file under tests/kernels/diagnosis fails in one class and is diagnosed with
that code (``Diagnosis:`` docstring line), its explanation, fix, kept message and source line; the good
file gets no diagnosis (``check_diagnosis``, called on each review by tests/e2e/test_kernel_verdicts.py).
The table itself is checked on messages produced live by PyTorch and on the
verbatim messages of the CUDA runtime, ptxas and Triton that this CPU-only machine cannot raise."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests.kernelfiles import Reviewed
from tools.diagnosis import source_line
from tools.diagnosis.table import classify, codes

def diagnosis_expectation(path: Path) -> set[str]:
    for line in path.read_text().splitlines()[:40]:
        if line.strip().startswith("Diagnosis:"):
            got = {c.strip() for c in line.split(":", 1)[1].split(",")}
            return set() if got == {"none"} else got
    raise AssertionError(f"{path} has no 'Diagnosis:' line")


def check_diagnosis(run: Reviewed) -> None:
    """Reviewed with builds, lowering, resources, diagnosis (tests/e2e/test_kernel_verdicts.py)."""
    path, review = run.path, run.review
    items = [e for e in review.evidence if e.tool == "diagnosis"]
    assert {e.defect for e in items} == diagnosis_expectation(path), [e.summary for e in review.evidence]
    for e in items:
        assert e.outcome == "info" and e.result["message"] and e.result["fix"]
        src = e.result["source"]
        if src is not None and src["file"] == "submission.py":
            assert e.spans and e.spans[0].start_line == src["line"]


def _raised(fn) -> str:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the message is the point
        return f"{type(exc).__name__}: {exc}"
    raise AssertionError("did not raise")


LIVE = [
    ("shape_mismatch", lambda: torch.randn(2, 3) @ torch.randn(2, 3)),
    ("shape_mismatch", lambda: torch.randn(3) + torch.randn(4)),
    ("stride_mismatch", lambda: torch.randn(4, 6).t().view(24)),
    ("dtype_mismatch", lambda: torch.randn(2, 2) @ torch.randn(2, 2, dtype=torch.float64)),
]

# Verbatim messages of failures a CPU-only machine cannot raise (CUDA runtime, ptxas, Triton's GPU path).
QUOTED = [
    ("shared_memory_over_limit", "triton.runtime.errors.OutOfResources: out of resource: shared memory, "
                                 "Required: 262144, Hardware limit: 232448. Reducing block sizes or `num_stages` "
                                 "may help."),
    ("shared_memory_over_limit", "ptxas error   : Entry function '_Z4kernPf' uses too much shared data "
                                 "(0x30000 bytes, 0xc000 max)"),
    ("registers_over_limit", "RuntimeError: CUDA error: too many resources requested for launch"),
    ("grid_limit", "RuntimeError: CUDA error: invalid configuration argument"),
    ("illegal_memory_access", "RuntimeError: CUDA error: an illegal memory access was encountered"),
    ("out_of_memory", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB"),
    ("toolchain_mismatch", "RuntimeError: CUDA error: the provided PTX was compiled with an unsupported "
                           "toolchain."),
    ("toolchain_mismatch", "RuntimeError: CUDA error: no kernel image is available for execution on the device"),
    ("toolchain_mismatch", "ptxas failed (exit status 255): ptxas softmax_kernel.ptx, line 5; fatal   : Unsupported "
                           ".version 8.8; current version is '8.7'\nptxas fatal   : Ptx assembly aborted due to errors"),
    ("unsupported_on_target", 'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 '
                              "dtypes are ('fp8e4b15', 'fp8e5')\")"),
    ("block_size", "ValueError: arange's range must be a power of 2"),
    ("block_size", "ValueError: numel (2097152) exceeds triton maximum tensor numel (1048576)"),
    ("int32_overflow", "RuntimeError: value cannot be converted to type int32 without overflow"),
    ("compile_error", "triton.compiler.errors.CompilationError: at 5:8:\n    x = foo(x)\n        ^"),
]


@pytest.mark.parametrize("code,fn", LIVE, ids=[c for c, _ in LIVE])
def test_classify_live_messages(code: str, fn) -> None:
    d = classify(_raised(fn))
    assert d is not None and d.code == code, d


@pytest.mark.parametrize("code,text", QUOTED, ids=[f"{c}-{i}" for i, (c, _) in enumerate(QUOTED)])
def test_classify_quoted_messages(code: str, text: str) -> None:
    d = classify(text)
    assert d is not None and d.code == code and d.matched in text and d.message
    assert code in codes()


def test_source_line_from_triton_compilation_error() -> None:
    src = "import triton\n\n@triton.jit\ndef k(x):\n    y = math.sqrt(x)\n"
    text = "CompilationError: at 2:8:\ndef k(x):\n    y = math.sqrt(x)\n        ^\nunsupported"
    assert source_line(text, ["submission.py"], {"submission.py": src}) == ("submission.py", 5)
    tb = 'Traceback:\n  File "/tmp/x/src/submission.py", line 12, in forward\n    y = x.view(3)\n'
    assert source_line(tb, ["submission.py"], {}) == ("submission.py", 12)
    assert source_line("kern.cu(7): error: identifier undefined", ["submission.py"], {}) == ("kern.cu", 7)


def test_good_text_is_not_classified() -> None:
    assert classify("imported, constructed and ran on the nominal inputs") is None
