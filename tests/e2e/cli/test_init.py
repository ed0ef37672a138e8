"""``kreview init`` makes a submission directory the reviewer ingests, and refuses bad input (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES

EXAMPLE = EXAMPLES / "fused_softmax_tutorial"


def _init(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reviewer", "init", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def test_init_builds_a_reviewable_directory(tmp_path: Path) -> None:
    dest = tmp_path / "mine"
    proc = _init(str(dest), "--kernel", str(EXAMPLE / "submission.py"), "--reference",
                 str(EXAMPLE / "reference.py"), "--gpu", "A100")
    assert proc.returncode == 0, proc.stderr
    sub = load_submission(dest)
    assert sub.format == "kernelbench" and sub.target.gpu == "A100"
    assert (dest / "submission.py").read_text() == (EXAMPLE / "submission.py").read_text()


def test_init_refuses_a_kernel_without_modelnew(tmp_path: Path) -> None:
    proc = _init(str(tmp_path / "x"), "--kernel", str(EXAMPLE / "reference.py"), "--reference",
                 str(EXAMPLE / "reference.py"))
    assert proc.returncode == 2 and "ModelNew" in proc.stderr
    assert not (tmp_path / "x").exists()


GPUMODE = EXAMPLES / "gpumode_vectoradd"


def test_init_writes_a_gpumode_directory_with_its_task(tmp_path: Path) -> None:
    dest = tmp_path / "add"
    proc = _init(str(dest), "--kernel", str(GPUMODE / "submission.py"), "--reference", str(GPUMODE / "reference.py"),
                 "--task", str(GPUMODE / "task.yml"), "--extra", str(GPUMODE / "task.py"))
    assert proc.returncode == 0, proc.stderr
    sub = load_submission(dest)
    assert sub.format == "gpumode" and sorted(p.name for p in dest.iterdir()) == [
        "reference.py", "submission.py", "task.py", "task.yml"]
    no_task = _init(str(tmp_path / "b"), "--kernel", str(GPUMODE / "submission.py"), "--reference",
                    str(GPUMODE / "reference.py"))
    assert no_task.returncode == 2 and "--task" in no_task.stderr and not (tmp_path / "b").exists()


def test_init_writes_a_manifest_for_any_pair_of_functions(tmp_path: Path) -> None:
    (tmp_path / "relu.py").write_text("import torch\n\ndef relu(x):\n    return torch.clamp(x, min=0)\n")
    (tmp_path / "ref.py").write_text("import torch\n\ndef relu_ref(x):\n    return torch.relu(x)\n\n"
                                     "def make_inputs(seed=0, n=1024):\n    g = torch.Generator().manual_seed(seed)\n"
                                     "    return [torch.randn(n, generator=g)]\n")
    dest = tmp_path / "mine"
    proc = _init(str(dest), "--kernel", str(tmp_path / "relu.py"), "--reference", str(tmp_path / "ref.py"),
                 "--entry", "relu", "--ref-entry", "relu_ref", "--inputs", "make_inputs", "--case", '{"n": 4096}',
                 "--gpu", "L4")
    assert proc.returncode == 0, proc.stderr
    sub = load_submission(dest)
    assert sub.format == "manifest" and sub.target.gpu == "L4"
    assert [c.params for c in sub.nominal_cases] == [{"n": 4096}]
    bad = _init(str(tmp_path / "x"), "--kernel", str(tmp_path / "relu.py"), "--reference", str(tmp_path / "ref.py"),
                "--entry", "relu", "--ref-entry", "nope", "--inputs", "make_inputs")
    assert bad.returncode == 2 and "nope" in bad.stderr and not (tmp_path / "x").exists()
