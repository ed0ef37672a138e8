"""``kreview init`` makes a submission directory the reviewer ingests, and refuses bad input (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reviewer.ingest import load_submission

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "fused_softmax_tutorial"


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
