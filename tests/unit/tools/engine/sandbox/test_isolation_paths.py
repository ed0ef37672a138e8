"""Which host paths the sandbox measurement requires hidden (tools/engine/sandbox/isolation.py ``probe_paths``,
tools/engine/sandbox/measure.py): a home folder holding kreview's clone is on the way to files every child
needs, so it is checked to show only that way, not required absent (which refused every review of a user who
cloned kreview into their home, as an unprivileged user does)."""

from __future__ import annotations

from pathlib import Path

import tools.engine.sandbox.isolation as isolation
from tools.engine.sandbox.bwrap import _PACKAGE_ROOT
from tools.engine.sandbox.measure import problems, _lists_more


def test_a_home_holding_the_clone_must_show_only_the_way_to_it(monkeypatch, tmp_path: Path) -> None:
    home = _PACKAGE_ROOT.parent
    monkeypatch.setenv("HOME", str(home))
    paths = isolation.probe_paths(tmp_path)
    assert str(home) not in paths["absent"]
    assert paths["sparse"][str(home)] == [_PACKAGE_ROOT.name]
    # a home elsewhere stays required absent
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    paths = isolation.probe_paths(tmp_path)
    assert str(tmp_path / "elsewhere") in paths["absent"] and str(tmp_path / "elsewhere") not in paths["sparse"]


def test_a_folder_on_the_way_that_shows_more_is_a_problem(tmp_path: Path) -> None:
    way = tmp_path / "home"
    (way / "clone").mkdir(parents=True)
    assert not _lists_more(str(way), ["clone"])
    (way / ".ssh").mkdir()
    assert _lists_more(str(way), ["clone"])
    fine = {"cap_eff": "0000000000000000", "seccomp": "2", "mount": "EPERM", "unshare_user": "EPERM",
            "visible_processes": 2, "net_interfaces": ["lo"], "own_writable": True}
    assert problems(fine) == []
    assert problems({**fine, "crowded": [str(way)]}) == [
        f"more than the way to kreview's own files visible in: {[str(way)]}"]
