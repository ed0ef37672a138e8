"""``--target``: the GPU a review targets, over the submission's own ``[target]``. The virtual device
answers Triton's driver API as that GPU, the evidence says so, and every rerun command carries it;
a GPU the reviewer does not know is a usage error listing the ones it does."""

from __future__ import annotations

import subprocess
import sys

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from tests.conftest import EXAMPLES


def test_target_decides_the_virtual_device_and_travels_in_reruns(config: ReviewConfig) -> None:
    review = start_review(EXAMPLES / "fused_softmax_tutorial",
                          config.model_copy(update={"only": ["builds"], "target_gpu": "A100"}))
    device = [e for e in review.evidence if "virtual" in e.summary]
    assert device and "A100" in device[0].summary and "sm_80" in device[0].summary, [e.summary for e in review.evidence]
    assert review.evidence and all(e.rerun.endswith("--target A100") for e in review.evidence if e.rerun)


def test_an_unknown_target_is_a_usage_error(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "reviewer.cli", "review", str(EXAMPLES / "softmax_triton"),
                           "--target", "Z80", "--runs-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Z80" in proc.stderr and "H100" in proc.stderr and "A100" in proc.stderr
    assert not any(tmp_path.iterdir())  # refused before any run started
