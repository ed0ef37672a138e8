"""The parent's reads and writes in folders a child can write: links, FIFOs, devices and oversized
files left there by a child are refused at once (never followed, never a blocking read)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import tools.engine.sandbox.safe_files as sf


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "child").mkdir()
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "secret").write_text("host secret")
    return tmp_path


def test_a_regular_file_is_read_and_written(root: Path) -> None:
    sf.write_bytes(root / "child" / "a" / "b.pt", b"data", anchor=root)
    assert sf.read_bytes(root / "child" / "a" / "b.pt", anchor=root) == b"data"


def test_a_symlink_is_not_followed_for_reading(root: Path) -> None:
    (root / "child" / "out.pt").symlink_to(root / "host" / "secret")
    with pytest.raises(sf.UnsafeFile):
        sf.read_bytes(root / "child" / "out.pt", anchor=root)


def test_a_fifo_is_refused_at_once_not_read_until_a_writer_comes(root: Path) -> None:
    os.mkfifo(root / "child" / "out.pt")
    t0 = time.monotonic()
    with pytest.raises(sf.UnsafeFile):
        sf.read_bytes(root / "child" / "out.pt", anchor=root)
    assert time.monotonic() - t0 < 2


def test_a_device_and_a_folder_are_refused(root: Path) -> None:
    (root / "child" / "dir.pt").mkdir()
    with pytest.raises(sf.UnsafeFile):
        sf.read_bytes(root / "child" / "dir.pt", anchor=root)
    (root / "child" / "zero.pt").symlink_to("/dev/zero")
    with pytest.raises(sf.UnsafeFile):
        sf.read_bytes(root / "child" / "zero.pt", anchor=root)


def test_a_file_over_the_cap_is_refused(root: Path) -> None:
    (root / "child" / "big.pt").write_bytes(b"x" * 1000)
    with pytest.raises(sf.UnsafeFile):
        sf.read_bytes(root / "child" / "big.pt", anchor=root, cap=999)


def test_a_folder_swapped_for_a_link_is_not_walked_through(root: Path) -> None:
    (root / "child" / "case").symlink_to(root / "host")
    with pytest.raises(sf.UnsafeFile):
        sf.read_bytes(root / "child" / "case" / "secret", anchor=root)
    with pytest.raises(sf.UnsafeFile):
        sf.write_bytes(root / "child" / "case" / "inputs.pt", b"x", anchor=root, replace=False)
    sf.unlink(root / "child" / "case" / "secret", anchor=root)
    assert (root / "host" / "secret").read_text() == "host secret"
    # where the parent owns the folder's content anyway, the link is replaced by a folder
    sf.write_bytes(root / "child" / "case" / "inputs.pt", b"x", anchor=root)
    assert not (root / "child" / "case").is_symlink() and not (root / "host" / "inputs.pt").exists()


def test_a_write_replaces_a_link_instead_of_writing_through_it(root: Path) -> None:
    (root / "child" / "inputs.pt").symlink_to(root / "host" / "secret")
    sf.write_bytes(root / "child" / "inputs.pt", b"mine", anchor=root)
    assert (root / "host" / "secret").read_text() == "host secret"
    assert not (root / "child" / "inputs.pt").is_symlink()
    assert (root / "child" / "inputs.pt").read_bytes() == b"mine"


def test_a_path_outside_the_anchor_is_refused(root: Path) -> None:
    with pytest.raises(sf.UnsafeFile):
        sf.read_bytes(root / "child" / ".." / "host" / "secret", anchor=root / "child")


def test_the_anchor_may_itself_be_reached_through_a_link(root: Path, tmp_path_factory) -> None:
    link = tmp_path_factory.mktemp("links") / "root"
    link.symlink_to(root)
    sf.write_bytes(link / "child" / "x.pt", b"ok", anchor=link)
    assert sf.read_bytes(link / "child" / "x.pt", anchor=link) == b"ok"


def _nest(folder: Path, depth: int) -> None:
    """``depth`` folders inside one another under ``folder``, made through descriptors (the path of the
    deepest is longer than PATH_MAX), with a file at the bottom."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        nxt = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.close(os.open("bottom", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.close(fd)


def test_remove_tree_removes_folders_nested_past_the_recursion_limit(root: Path) -> None:
    # tests/data/sandbox/hostile/deep_folders.py leaves this in the child's folders; shutil.rmtree
    # raised RecursionError on it (the review crashed, and so did every later one on the machine)
    import shutil
    import sys

    _nest(root / "child", sys.getrecursionlimit() + 500)
    (root / "child" / "file").write_text("x")
    with pytest.raises(RecursionError):
        shutil.rmtree(root / "child", ignore_errors=True)
    sf.remove_tree(root / "child")
    assert not (root / "child").exists()


def test_remove_tree_removes_links_not_what_they_point_to(root: Path) -> None:
    (root / "child" / "sub").mkdir()
    (root / "child" / "sub" / "to-file").symlink_to(root / "host" / "secret")
    (root / "child" / "to-folder").symlink_to(root / "host")
    sf.remove_tree(root / "child")
    assert not (root / "child").exists()
    assert (root / "host" / "secret").read_text() == "host secret"
    # a link standing where the folder was is removed, not followed
    (root / "child").symlink_to(root / "host")
    sf.remove_tree(root / "child")
    assert not os.path.lexists(root / "child") and (root / "host" / "secret").exists()


def test_remove_tree_of_nothing_is_quiet(root: Path) -> None:
    sf.remove_tree(root / "missing")
    sf.remove_tree(root / "missing" / "deeper")


def test_a_name_the_submission_chose_becomes_one_plain_file_name(tmp_path) -> None:
    from tools.engine.sandbox.safe_files import plain_name

    for hostile in ("../../etc/passwd", "..", ".", "/abs/path", "a/../../b", ".hidden", "x\x00y", "név kernel", ""):
        name = plain_name(hostile)
        assert name and "/" not in name and not name.startswith(".") and "\x00" not in name
        assert (tmp_path / name).resolve().parent == tmp_path.resolve()
        assert (tmp_path / f"0-{name}").resolve().parent == tmp_path.resolve()
    assert plain_name("softmax_kernel") == "softmax_kernel" and plain_name("k.sm_90.ptx") == "k.sm_90.ptx"
    assert len(plain_name("k" * 500)) == 120
