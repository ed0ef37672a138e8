"""The first process's own steps before a forked restart (tools/engine/sandbox/zygote.py), on folders of
the test's: emptying what a child left (its locked folders too, never what was there before), the limit
past which it gives up, and the state compared before every fork."""

from __future__ import annotations

import os
from pathlib import Path

import tools.engine.sandbox.zygote as zygote

# Rationale: these tests run on the host, whose network namespace's sockets come and go with every other
# process (pytest's workers): inside a sandbox only its own processes make them
_HOST_NOISE = ("sockets:",)


def _drift(before: dict) -> list[str]:
    return [d for d in zygote.drift(before) if not d.startswith(_HOST_NOISE)]


def _plant(root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "f").write_text("x")
    (root / "link").symlink_to("/etc/passwd")
    locked = root / "locked"
    (locked / "inner").mkdir(parents=True)
    (locked / "inner" / "g").write_text("y")
    os.chmod(locked / "inner", 0o500)
    os.chmod(locked, 0o000)


def test_emptying_removes_what_a_child_left_and_keeps_what_was_there(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    (scratch / "way" / "to").mkdir(parents=True)  # the tmpfs folders on the way to a bound one
    before = zygote.state((str(scratch),))
    keep = zygote.kept_paths(before, (str(scratch),))
    _plant(scratch)
    assert _drift(before) != []
    assert zygote.empty_scratch(keep, (str(scratch),))
    assert sorted(p.name for p in scratch.rglob("*")) == ["to", "way"]
    assert [d.split(":")[0] for d in _drift(before)] == [f"tree {scratch}"]  # its folders' times
    zygote.restore_times(before, (str(scratch),))
    assert _drift(before) == []
    assert Path("/etc/passwd").exists()  # a link is removed, never followed


def test_past_the_entry_limit_it_gives_up_and_what_is_left_shows(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(zygote, "MAX_ENTRIES", 50)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    before = zygote.state((str(scratch),))
    for i in range(80):
        (scratch / f"f{i}").write_text("x")
    assert not zygote.empty_scratch(frozenset(), (str(scratch),))
    assert zygote.state((str(scratch),))[f"tree {scratch}"] != before[f"tree {scratch}"]


def test_a_tree_too_deep_to_read_is_a_difference(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    before = zygote.state((str(scratch),))
    fd = os.open(scratch, os.O_RDONLY)
    try:
        for _ in range(40):  # 40 x 200 characters: past PATH_MAX, made relative to each folder
            name = "d" * 200
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
    finally:
        os.close(fd)
    zygote.empty_scratch(frozenset(), (str(scratch),))
    now = zygote.state((str(scratch),))
    assert now != before and now[f"tree {scratch}"] != before[f"tree {scratch}"]


def test_the_state_names_what_a_child_could_change_in_the_first_process() -> None:
    now = zygote.state(())
    for key in ("sysv ipc", "sockets", "scheduling attributes", "nice", "scheduler", "affinity", "io priority", "limits", "oom_score_adj", "coredump_filter",
                "SigCgt", "SigIgn", "SigBlk"):
        assert key in now, key
    assert "RLIMIT_NOFILE" in now["limits"]
    changed = dict(now, nice=now["nice"] + 1)
    assert _drift(changed) == [f"nice: {now['nice'] + 1} -> {now['nice']}"]


def test_attributes_a_child_can_leave_on_a_kept_folder_are_differences(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    (scratch / "way").mkdir(parents=True)
    before = zygote.state((str(scratch),))
    os.utime(scratch / "way", ns=(123456789, 987654321))
    assert _drift(before)
    zygote.restore_times(before, (str(scratch),))
    assert _drift(before) == []
    try:
        os.setxattr(scratch / "way", "user.kreview", b"message")
    except OSError:  # a file system without user extended attributes
        return
    assert any(d.startswith(f"tree {scratch}") for d in _drift(before))
