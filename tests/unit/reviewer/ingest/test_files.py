"""Hostile submission directories (no code runs): symlinks, special files, oversized sources and
manifest paths leaving the directory are refused with a clear error (exit 2), never read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.core.errors import ManifestError, UnsafeSubmissionFile
from reviewer.ingest import MAX_READ_BYTES, load_submission
from tests.kernelfiles import KERNELS

SPINE = KERNELS / "spine"


def _task(tmp_path: Path) -> Path:
    d = tmp_path / "sub"
    d.mkdir()
    shutil.copy(SPINE / "reference.py", d / "reference.py")
    return d


def test_submission_py_as_a_symlink_to_dev_zero_is_refused_by_the_cli(tmp_path) -> None:
    d = _task(tmp_path)
    os.symlink("/dev/zero", d / "submission.py")
    out = subprocess.run([sys.executable, "-m", "reviewer.cli", "review", str(d), "--format", "json",
                          "--runs-dir", str(tmp_path / "runs"), "--no-signoff"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "unsafe_submission_file" in out.stderr and "symbolic link" in out.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_a_symlink_to_a_file_outside_is_refused_even_in_a_subfolder(tmp_path) -> None:
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("api_key = sk-outside")
    d = _task(tmp_path)
    shutil.copy(SPINE / "reference.py", d / "submission.py")
    (d / "data").mkdir()
    os.symlink(secret, d / "data" / "weights.txt")
    with pytest.raises(UnsafeSubmissionFile, match="symbolic link") as err:
        load_submission(d)
    assert err.value.exit_code == 2


def test_a_fifo_is_refused(tmp_path) -> None:
    d = _task(tmp_path)
    os.mkfifo(d / "submission.py")
    with pytest.raises(UnsafeSubmissionFile, match="not a regular file"):
        load_submission(d)


def test_an_oversized_source_is_refused_before_it_is_read(tmp_path) -> None:
    d = _task(tmp_path)
    with (d / "submission.py").open("wb") as fh:
        fh.truncate(MAX_READ_BYTES + 1)  # sparse: nothing is written, the size is what counts
    with pytest.raises(UnsafeSubmissionFile, match="at most"):
        load_submission(d)


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.py", "sub/../../outside.py"])
def test_manifest_paths_stay_inside_the_submission_directory(tmp_path, path) -> None:
    (tmp_path / "outside.py").write_text("def run(x):\n    return x\n")
    d = tmp_path / "m"
    d.mkdir()
    (d / "ref.py").write_text("import torch\ndef ref(x):\n    return x\ndef make():\n    return [torch.ones(2)]\n")
    (d / "kreview.toml").write_text(f'[submission]\nfile = "{path}"\nentry = "run"\n'
                                    '[reference]\nfile = "ref.py"\nentry = "ref"\ninputs = "make"\n')
    with pytest.raises(ManifestError, match="relative path inside"):
        load_submission(d)
