"""The reviewer's own process computes on one torch thread (tools/engine/own_threads.py), and making a
review's tool context does not import torch before its children start."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "softmax_triton"


def test_a_process_without_torch_is_not_made_to_import_it_before_its_children_start(tmp_path) -> None:
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from reviewer.core.config import ReviewConfig
        from reviewer.device import detect_device
        from reviewer.graph.context import make_tool_context
        from reviewer.ingest import load_submission
        ctx = make_tool_context(load_submission(Path({str(EXAMPLE)!r})), ReviewConfig(),
                                Path({str(tmp_path)!r}) / "run", 0, detect_device("cpu"))
        ctx.session.close()
        print("torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def test_a_comparison_anywhere_runs_on_one_thread() -> None:
    # a rerun or an audit compares without a review's plan: the comparison pins the thread count itself
    code = textwrap.dedent("""
        import torch
        torch.set_num_threads(2)
        from tools.engine.compare.compare import compare_tensor
        x = torch.randn(100)
        compare_tensor("o", x, x, None, None)
        print(torch.get_num_threads())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1"]
