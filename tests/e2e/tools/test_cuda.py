"""CUDA submissions: what a CPU-only machine can and cannot say (run criteria unverified with the
reason, nvcc compile, static findings), source extraction and sanitizer-log parsing; the run and
compute-sanitizer checks on the bundled examples behind the GPU marker."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES
from tests.kernelfiles import expectations
from reviewer.core.submission import Submission
from tools.engine.backends.cuda import cuda_sources, parse_sanitizer_log
from tools.engine.harness.cuda_ext import entry_declaration

GOOD, BUGGY = EXAMPLES / "scaled_add_cuda", EXAMPLES / "scaled_add_cuda_buggy"
RUN_TOOLS = ["builds", "correctness", "sanitizers"]


@pytest.mark.parametrize("example", [GOOD, BUGGY], ids=["good", "buggy"])
def test_without_a_gpu_every_run_criterion_is_unverified_with_the_reason(example: Path, config: ReviewConfig) -> None:
    review = start_review(example, config.model_copy(update={"only": RUN_TOOLS, "device": "cpu"}))
    want = expectations(example / "submission.py", on_cpu=True)
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    assert {k: got[k] for k in want} == want
    for cid in ("builds", "correctness", "generality", "numerics"):
        c = review.criterion(cid)
        assert c.verdict == "unverified" and "CUDA device" in c.summary, (cid, c.summary)
    sanitizers = [e for e in review.evidence if e.tool == "sanitizers"]
    assert {e.check.split()[-1] for e in sanitizers} == {"memcheck", "racecheck", "initcheck", "synccheck"}
    assert all(e.outcome == "unverified" and "CUDA device" in (e.reason or "") for e in sanitizers)
    assert not any(e.outcome == "pass" for e in review.evidence)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_compiles_the_load_inline_source_and_the_missing_guard_is_a_finding(config: ReviewConfig) -> None:
    review = start_review(BUGGY, config.model_copy(update={"only": ["builds", "lowering"], "device": "cpu"}))
    lowered = [e for e in review.evidence if e.tool == "lowering"]
    assert [e.outcome for e in lowered] == ["pass"], [e.summary for e in lowered]
    assert any(a.endswith(".ptx") for a in lowered[0].artifacts)
    ptx = Path(review.run_dir) / next(a for a in lowered[0].artifacts if a.endswith(".ptx"))
    assert ".entry" in ptx.read_text() and "scaled_add_kernel" in ptx.read_text()
    guard = [f for f in review.findings if f.category == "no_bounds_guard"]
    assert len(guard) == 1 and "scaled_add_kernel" in guard[0].spans[0].quote
    assert review.criterion("builds").verdict == "unverified"  # compiled, but never ran


@pytest.mark.slow
def test_a_compile_error_fails_builds_at_the_right_line(tmp_path: Path, config: ReviewConfig) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed")
    sub = tmp_path / "sub"
    shutil.copytree(GOOD, sub)
    text = (sub / "submission.py").read_text().replace("out[i] = alpha * a[i] + b[i];", "out[i] = alpha * a[i] + c[i];")
    (sub / "submission.py").write_text(text)
    review = start_review(sub, config.model_copy(update={"only": ["builds", "lowering"], "device": "cpu"}))
    assert review.criterion("builds").verdict == "fail"
    failed = [e for e in review.evidence if e.tool == "lowering" and e.outcome == "fail"]
    assert failed and failed[0].spans and "c[i]" in failed[0].spans[0].quote


def test_load_inline_sources_are_read_statically(tmp_path: Path) -> None:
    (tmp_path / "s.py").write_text(textwrap.dedent('''
        from torch.utils.cpp_extension import load_inline
        HEAD = "#include <torch/extension.h>\\n"
        body = """
        __global__ void k(float* x) { x[threadIdx.x] = 0; }
        """
        m = load_inline("ext", "void f();", cuda_sources=HEAD + body, functions=["f"])
        n = load_inline(name="dyn", cpp_sources="", cuda_sources=make_source())
    '''))
    sub = Submission(root=str(tmp_path), name="s", format="manifest", framework="cuda", reference_file="s.py",
                     submission_file="s.py", source_files=["s.py"])
    found, problems = cuda_sources(sub)
    assert [s.name for s in found] == ["ext"] and "__global__ void k" in found[0].text
    assert found[0].text.startswith("#include") and found[0].prelude.count("#include") == 3
    assert len(problems) == 1 and "without running the submission" in problems[0]


def test_standalone_cu_with_a_manifest_is_ingested_as_cuda(tmp_path: Path, config: ReviewConfig) -> None:
    src = (GOOD / "submission.py").read_text().split('cuda_source = """', 1)[1].split('"""', 1)[0]
    (tmp_path / "scaled_add.cu").write_text(src)
    shutil.copy(GOOD / "reference.py", tmp_path / "reference.py")
    (tmp_path / "ref_fn.py").write_text("import torch\n\ndef inputs(seed, n=1000):\n"
                                        "    g = torch.Generator().manual_seed(seed)\n"
                                        "    return [torch.randn(n, generator=g), torch.randn(n, generator=g), 0.5]\n\n"
                                        "def reference(a, b, alpha):\n    return alpha * a + b\n")
    (tmp_path / "kreview.toml").write_text('[submission]\nfile = "scaled_add.cu"\nentry = "scaled_add"\n\n'
                                           '[reference]\nfile = "ref_fn.py"\nentry = "reference"\ninputs = "inputs"\n')
    sub = load_submission(tmp_path)
    assert (sub.format, sub.framework, sub.syntax_error) == ("manifest", "cuda", None)
    assert entry_declaration(src, "scaled_add") == "torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b, double alpha);"
    review = start_review(tmp_path, config.model_copy(update={"only": RUN_TOOLS, "device": "cpu"}))
    assert review.criterion("builds").verdict == "unverified"


SAMPLE_MEMCHECK = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at scaled_add_kernel(const float *, const float *, float *, float, long)+0x70 in /tmp/ext/cuda.cu:10
=========     by thread (208,0,0) in block (1024,0,0)
=========     Address 0x7f1c2e500400 is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7f1c2e400000 of size 1048768 bytes
=========
========= Invalid __global__ read of size 4 bytes
=========     at scaled_add_kernel(const float *, const float *, float *, float, long)+0x70 in /tmp/ext/cuda.cu:10
=========     by thread (209,0,0) in block (1024,0,0)
=========
========= Invalid __global__ write of size 4 bytes
=========     at scaled_add_kernel(const float *, const float *, float *, float, long)+0xb0 in /tmp/ext/cuda.cu:10
=========
========= ERROR SUMMARY: 144 errors
"""


def test_sanitizer_log_parsing_counts_and_deduplicates_reports() -> None:
    count, defects = parse_sanitizer_log(SAMPLE_MEMCHECK, "memcheck", lambda f, ln: ln + 100 if f.endswith("cuda.cu") else None)
    assert count == 144
    assert [d.code for d in defects] == ["memcheck_invalid_global_read", "memcheck_invalid_global_write"]
    assert defects[0].line == 110 and "scaled_add_kernel" in defects[0].message
    assert parse_sanitizer_log("========= ERROR SUMMARY: 0 errors\n", "racecheck") == (0, [])
    assert parse_sanitizer_log("killed before the summary", "memcheck") == (None, [])


@pytest.mark.gpu
@pytest.mark.parametrize("example", [GOOD, BUGGY], ids=["good", "buggy"])
def test_on_a_gpu_the_examples_get_their_verdicts(example: Path, config: ReviewConfig) -> None:
    limits = config.limits.model_copy(update={"startup_timeout_s": 600.0, "call_timeout_s": 300.0})
    review = start_review(example, config.model_copy(update={
        "only": ["builds", "correctness", "lowering", "sanitizers"], "limits": limits}))
    want = expectations(example / "submission.py")
    got = {c.id: c.verdict for c in review.criteria} | {"overall": review.overall}
    assert {k: got[k] for k in want} == want, [e.summary for e in review.evidence]
    memcheck = [e for e in review.evidence if e.tool == "sanitizers" and e.check.endswith("memcheck")]
    assert memcheck and (memcheck[0].outcome == "fail") == (example == BUGGY)
    if example == BUGGY:
        assert memcheck[0].defect.startswith("memcheck_invalid_global")
