"""The review's sandbox children start before the parent imports the graph, the tools and torch (issue 34),
and a run that fails its rubric check stops them and leaves no run folder.

Run in a fresh interpreter: this test process has torch imported already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.device import may_have_gpu

ROOT = Path(__file__).resolve().parents[4]

_SCRIPT = r"""
import json, sys
from pathlib import Path
import tools.engine.sandbox.worker as worker
from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import RubricError

seen, workers = [], []
_launch = worker.SandboxWorker.launch
def launch(self):
    seen.append({"name": self.name, "torch": "torch" in sys.modules, "langgraph": "langgraph" in sys.modules})
    workers.append(self)
    return _launch(self)
worker.SandboxWorker.launch = launch
runs, rubric = Path(sys.argv[2]), Path(sys.argv[3])
try:
    start_review(sys.argv[1], ReviewConfig(runs_dir=runs, rubric=rubric, signoff=False))
    outcome = "no error"
except RubricError as exc:
    outcome = "RubricError"
print(json.dumps({"outcome": outcome, "launched": seen, "alive": [w.alive for w in workers],
                  "runs": sorted(p.name for p in runs.iterdir()) if runs.exists() else []}))
"""


def test_children_start_before_torch_and_stop_on_a_bad_rubric(tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text("criteria: [this is not a rubric\n")
    runs = tmp_path / "runs"
    out = subprocess.run([sys.executable, "-c", _SCRIPT, str(ROOT / "examples" / "softmax_triton"), str(runs),
                          str(rubric)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["outcome"] == "RubricError"
    # the pair the run check needs, launched while the parent had imported neither torch nor LangGraph
    assert sorted(x["name"] for x in report["launched"]) == ["reference", "submission"]
    assert not any(x["torch"] or x["langgraph"] for x in report["launched"]), report["launched"]
    # stopped with the failed start, and no run folder made (nor its sandbox logs)
    assert report["alive"] == [False, False]
    assert report["runs"] == []


def test_no_gpu_node_means_the_cpu_without_torch(tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "null").touch()
    (dev / "nvidia-caps").mkdir()  # a folder of the driver's, not a GPU or its control node
    assert not may_have_gpu(dev)
    for node in ("nvidiactl", "nvidia0", "kfd", "dxg"):
        (dev / node).touch()
        assert may_have_gpu(dev), node
        (dev / node).unlink()


@pytest.mark.skipif(may_have_gpu(), reason="this machine has a GPU driver's node: torch decides")
def test_auto_on_a_machine_without_gpu_nodes_imports_no_torch() -> None:
    code = ("import sys; from reviewer.device import detect_device; d = detect_device('auto'); "
            "print(d.kind, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.split() == ["cpu", "False"], out.stderr[-2000:]
