"""The pid a sandbox child serves as (tools/engine/sandbox/pid_counter.py) and the registry of sandbox
folders (tools/engine/session.py): neither needs a sandbox."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import tools.engine.session as session
from tools.engine.sandbox.pid_counter import HIGHEST, LOWEST, target_for


def test_the_target_is_drawn_from_the_seed_in_its_range() -> None:
    targets = [target_for(s) for s in range(200)]
    assert targets == [target_for(s) for s in range(200)]  # the same seed, the same pid
    assert all(LOWEST <= t <= HIGHEST for t in targets)
    assert min(targets) < 1000 < 10000 < max(targets)  # hundreds to tens of thousands


def test_a_dead_reviewers_folders_are_removed_and_a_live_ones_kept(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.Popen(["true"])
    dead.wait()
    mine = session._register_root(Path(tempfile.mkdtemp()))
    assert mine is not None and mine.parent.name == f"kreview-roots-{os.geteuid()}"
    stale = Path(tempfile.mkdtemp())
    (stale / "submission").mkdir()
    (session._registry() / f"{dead.pid}-{stale.name}").touch()
    # an entry that names no temporary folder of tempfile's is never followed
    outside = tmp_path / "keep"
    outside.mkdir()
    (session._registry() / f"{dead.pid}-..").touch()
    session._remove_stale_roots()
    assert not stale.exists() and not (session._registry() / f"{dead.pid}-{stale.name}").exists()
    assert mine.exists() and (tmp_path / mine.name.split("-", 1)[1]).exists() and outside.exists()
    assert os.getpid() == int(mine.name.split("-")[0])


def test_a_registry_name_taken_by_a_link_or_an_open_folder_is_not_used(tmp_path, monkeypatch) -> None:
    """A shared temporary folder: another user may have made the registry's name first (as root did for
    every other user before it carried the uid). The reviewer then registers nothing and removes nothing,
    and the review still runs."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    name = tmp_path / f"kreview-roots-{os.geteuid()}"
    elsewhere = tmp_path / "planted"
    elsewhere.mkdir()
    victim = Path(tempfile.mkdtemp())
    dead = subprocess.Popen(["true"])
    dead.wait()
    (elsewhere / f"{dead.pid}-{victim.name}").touch()
    name.symlink_to(elsewhere)
    assert session._registry() is None and session._register_root(Path(tempfile.mkdtemp())) is None
    session._remove_stale_roots()
    assert victim.exists()  # the planted entry named it; it is not followed
    name.unlink()
    name.mkdir(mode=0o777)
    name.chmod(0o777)  # writable by anyone: entries there may be anyone's
    (name / f"{dead.pid}-{victim.name}").touch()
    assert session._registry() is None
    session._remove_stale_roots()
    assert victim.exists()
    # a stale folder of the old naming that is a link is never followed either
    target = tmp_path / "target"
    target.mkdir()
    (tmp_path / f"kreview-sandbox-{dead.pid}-x").symlink_to(target)
    session._remove_stale_roots()
    assert target.exists()
