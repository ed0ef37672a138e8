"""What ``kreview audit`` reads as tasks: a task folder without a submission (each format), a submission
folder (its task), a benchmark folder of task folders or of KernelBench reference files; nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.errors import IngestError, UnsafeSubmissionFile
from reviewer.ingest import load_submission
from reviewer.ingest.tasks import tasks_in
from tests.conftest import DATA, EXAMPLES

KB = ("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
      "def get_inputs():\n    return [torch.randn(4)]\ndef get_init_inputs():\n    return []\n")


def test_a_task_folder_needs_no_submission(tmp_path: Path) -> None:
    (tmp_path / "reference.py").write_text(KB)
    with pytest.raises(IngestError):
        load_submission(tmp_path)  # a review still needs one
    [task] = tasks_in(tmp_path)
    assert task.format == "kernelbench" and task.reference_file == task.submission_file == "reference.py"


def test_a_gpumode_and_a_manifest_task(tmp_path: Path) -> None:
    gm = tmp_path / "gm"
    gm.mkdir()
    (gm / "reference.py").write_text("def generate_input(n):\n    return n\ndef ref_kernel(d):\n    return d\n")
    (gm / "task.yml").write_text("tests:\n  - n: 4\n")
    assert tasks_in(gm)[0].format == "gpumode"
    mf = tmp_path / "mf"
    mf.mkdir()
    (mf / "ref.py").write_text("def f(x):\n    return x\ndef inputs():\n    return [1]\n")
    (mf / "kreview.toml").write_text('[reference]\nfile = "ref.py"\nentry = "f"\ninputs = "inputs"\n')
    [task] = tasks_in(mf)
    assert task.format == "manifest" and task.entries["reference"] == "f"


def test_a_submission_folder_is_audited_for_its_task() -> None:
    [task] = tasks_in(EXAMPLES / "softmax_triton")
    assert task.submission_file == "submission.py"


def test_benchmark_folders(tmp_path: Path) -> None:
    level = tmp_path / "level1"
    level.mkdir()
    for name in ("1_a.py", "2_b.py"):
        (level / name).write_text(KB)
    assert [t.reference_file for t in tasks_in(level)] == ["1_a.py", "2_b.py"]
    names = {Path(t.root).name for t in tasks_in(DATA / "tasks")}
    assert {"relu_rand", "gelu_randn", "wide_softmax"} <= names


def test_no_task_is_an_ingest_error(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("x = 1\n")
    with pytest.raises(IngestError, match="no task here"):
        tasks_in(tmp_path)


def test_a_folder_without_tasks_says_so_whatever_its_sub_folders_hold(tmp_path: Path) -> None:
    """``kreview audit /tmp``: compiled code deep in an unrelated sub-folder is not the answer; "no task
    here" is. Beside reference files, the unsafe file is still refused."""
    junk = tmp_path / "other" / "artifacts"
    junk.mkdir(parents=True)
    (junk / "kernel.cubin").write_bytes(b"\x7fELF" + bytes(64))
    (tmp_path / "notes.md").write_text("nothing to run\n")
    with pytest.raises(IngestError, match="no task here") as err:
        tasks_in(tmp_path)
    assert "cannot be read" not in str(err.value) and "cubin" not in str(err.value)
    (tmp_path / "1_a.py").write_text(KB)
    with pytest.raises(UnsafeSubmissionFile, match="compiled code"):
        tasks_in(tmp_path)


def test_a_mistyped_folder_gets_the_near_name(tmp_path: Path) -> None:
    (tmp_path / "softmax_triton").mkdir()
    with pytest.raises(IngestError, match=r"no such directory \(did you mean '.*softmax_triton'\?\)"):
        tasks_in(tmp_path / "sofmax_triton")
    with pytest.raises(IngestError, match=r"no such directory \(did you mean"):
        load_submission(tmp_path / "sofmax_triton")
    with pytest.raises(IngestError, match=r"no such directory$"):
        load_submission(tmp_path / "zzz")
