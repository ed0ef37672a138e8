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


def test_a_hard_link_to_a_file_elsewhere_is_refused_like_a_symlink(tmp_path) -> None:
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("api_key = sk-outside")
    d = _task(tmp_path)
    shutil.copy(SPINE / "reference.py", d / "submission.py")
    os.link(secret, d / "weights.txt")
    with pytest.raises(UnsafeSubmissionFile, match="hard link") as err:
        load_submission(d)
    assert err.value.exit_code == 2


@pytest.mark.parametrize("name,content", [
    ("helper.pyc", b"\xa7\r\r\n" + bytes(12) + b"\xe3"),  # a sourceless module: imports as `helper`
    ("kernel.so", b"\x7fELF\x02\x01\x01"),
    ("weights.txt", b"\x7fELF\x02\x01\x01"),  # a shared library by another name (ctypes loads any name)
    ("data.bin", b"\xa7\r\r\n" + bytes(12)),  # bytecode by another name
])
def test_compiled_code_is_refused_naming_the_file(tmp_path, name, content) -> None:
    d = _task(tmp_path)
    shutil.copy(SPINE / "reference.py", d / "submission.py")
    (d / "lib").mkdir()
    (d / "lib" / name).write_bytes(content)
    with pytest.raises(UnsafeSubmissionFile, match="compiled code") as err:
        load_submission(d)
    assert f"lib/{name}" in str(err.value) and err.value.exit_code == 2


def test_plain_data_and_text_files_are_not_taken_for_binaries(tmp_path) -> None:
    d = _task(tmp_path)
    shutil.copy(SPINE / "reference.py", d / "submission.py")
    (d / "notes.txt").write_bytes(b"ab\r\nsecond line\r\n")
    (d / "table.csv").write_text("a,b\n1,2\n")
    assert load_submission(d).submission_file == "submission.py"


def test_a_deep_tree_is_a_clear_error_by_the_cli_not_a_recursion_error(tmp_path) -> None:
    d = _task(tmp_path)
    shutil.copy(SPINE / "reference.py", d / "submission.py")
    deep = d
    for _ in range(1100):  # (os.makedirs itself recurses per level)
        deep = deep / "d"
        deep.mkdir()
    try:
        out = subprocess.run([sys.executable, "-m", "reviewer.cli", "review", str(d), "--format", "json",
                              "--runs-dir", str(tmp_path / "runs"), "--no-signoff"],
                             capture_output=True, text=True, timeout=120, check=False)
    finally:  # (pytest's own clean-up of tmp_path recurses and would fail on it)
        subprocess.run(["rm", "-rf", str(d / "d")], check=False)
    assert out.returncode == 2, out.stderr[-2000:]
    assert "nested deeper" in out.stderr and "RecursionError" not in out.stderr


@pytest.mark.parametrize("name", [b"bad\nname.py", b"bad\xffname.txt", b"esc\x1b[31m.txt"])
def test_odd_file_names_are_a_clear_error(tmp_path, name) -> None:
    d = _task(tmp_path)
    shutil.copy(SPINE / "reference.py", d / "submission.py")
    with open(os.path.join(os.fsencode(d), name), "wb") as fh:
        fh.write(b"x = 1\n")
    with pytest.raises(UnsafeSubmissionFile, match="file name") as err:
        load_submission(d)
    assert err.value.exit_code == 2
    str(err.value).encode("utf-8")  # the message itself can be printed and put in JSON


def test_setuid_and_setgid_bits_do_not_survive_the_copy_into_the_sandbox(tmp_path) -> None:
    from tools.engine.session import _copy_tree

    d = _task(tmp_path)
    shutil.copy(SPINE / "reference.py", d / "submission.py")
    os.chmod(d / "submission.py", 0o6755)
    _copy_tree(d, tmp_path / "copy")
    mode = (tmp_path / "copy" / "submission.py").stat().st_mode
    assert mode & 0o7000 == 0 and mode & 0o777 == 0o755


def test_an_odd_name_of_the_submission_directory_itself_is_a_clear_error(tmp_path) -> None:
    d = Path(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"sub\nmission")))
    d.mkdir()
    shutil.copy(SPINE / "reference.py", d / "reference.py")
    shutil.copy(SPINE / "reference.py", d / "submission.py")
    with pytest.raises(UnsafeSubmissionFile, match="file name"):
        load_submission(d)
