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
