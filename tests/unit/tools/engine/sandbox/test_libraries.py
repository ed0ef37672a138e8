"""The sandbox child imports libraries from the reviewer's folders (tools/engine/sandbox/libraries.py):
a PYTHONPATH folder of installed distributions is on its path, any other PYTHONPATH folder stays hidden."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.kernelfiles import KERNELS
from tools.engine.harness.case import Case
from tools.engine.sandbox.libraries import library_paths, mismatches

PROBE = '''"""output[0,0] = the PYTHONPATH library's VALUE (-1 if it cannot be imported);
output[0,1] = 1 if the user's other PYTHONPATH folder is visible."""
import os

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.zeros_like(x)
        try:
            import kreview_pp_lib
            y[0, 0] = float(kreview_pp_lib.VALUE)
        except ImportError:
            y[0, 0] = -1.0
        y[0, 1] = float(os.path.exists(os.path.join({private!r}, "secret.txt")))
        return y
'''


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    lib, private = tmp_path / "libs", tmp_path / "project"
    (lib / "kreview_pp_lib").mkdir(parents=True)
    (lib / "kreview_pp_lib" / "__init__.py").write_text("VALUE = 7\n")
    (lib / "kreview_pp_lib-1.0.dist-info").mkdir()
    (lib / "kreview_pp_lib-1.0.dist-info" / "METADATA").write_text("Name: kreview-pp-lib\nVersion: 1.0\n")
    private.mkdir()
    (private / "secret.txt").write_text("hunter2")
    return lib, private


def test_only_pythonpath_folders_of_installed_distributions_are_library_paths(tmp_path, monkeypatch) -> None:
    lib, private = _folders(tmp_path)
    monkeypatch.setenv("PYTHONPATH", f"{private}:{lib}:{tmp_path / 'absent'}:")
    assert library_paths() == [str(lib.resolve())]


def test_the_child_imports_pythonpath_libraries_and_sees_no_other_pythonpath_folder(tmp_path, config,
                                                                                     monkeypatch) -> None:
    lib, private = _folders(tmp_path)
    monkeypatch.setenv("PYTHONPATH", f"{private}:{lib}")
    monkeypatch.setattr(sys, "path", [str(lib), *sys.path])
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copy(KERNELS / "spine" / "reference.py", sub / "reference.py")
    (sub / "submission.py").write_text(PROBE.format(private=str(private)))
    ctx = make_tool_context(load_submission(sub), config, tmp_path / "run", 7, detect_device("cpu"))
    try:
        case = Case(id="c", seed=1)
        run = ctx.session.run_submission(case, ctx.session.reference(case))
        assert run.ok, run.call.failure_text()
        assert run.outputs[0][0, :2].tolist() == [7.0, 0.0]
    finally:
        ctx.session.close()


def test_a_child_that_would_import_other_library_files_is_named() -> None:
    parent = {"torch": "/venv/torch/__init__.py", "triton": "/alt/triton/__init__.py", "jax": None}
    child = {"torch": "/venv/torch/__init__.py", "triton": "/venv/triton/__init__.py", "jax": "/venv/jax/__init__.py"}
    assert mismatches(parent, child) == [
        "triton: the reviewer imports /alt/triton/__init__.py, the sandbox child /venv/triton/__init__.py"]
    assert mismatches(parent, {"torch": "/venv/torch/__init__.py"})[0].endswith("the sandbox child nowhere")
