"""The parent writes our packages' bytecode before a child starts (the child, bound read-only, cannot):
missing and stale bytecode is written even where PYTHONDONTWRITEBYTECODE is set, current bytecode is left
alone, a module that does not compile stops nothing, and a child is launched only after it is done."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

import tools.engine.sandbox.bytecode as bytecode
import tools.engine.sandbox.worker as worker_module
from reviewer.core.limits import SandboxLimits
from tools.engine.sandbox import SandboxWorker


def _tree(root: Path) -> dict[str, Path]:
    files = {"a": root / "tools" / "a.py", "b": root / "tools" / "sub" / "b.py", "c": root / "reviewer" / "c.py",
             "other": root / "elsewhere" / "d.py"}
    for name, path in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {name!r}\n")
    return files


def _cached(path: Path) -> Path:
    return Path(importlib.util.cache_from_source(str(path)))


@pytest.fixture(autouse=True)
def _no_bytecode_writes(monkeypatch) -> None:
    """As under PYTHONDONTWRITEBYTECODE=1, and with this process's record of compiled roots emptied."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(bytecode, "_done", set())


def test_missing_bytecode_is_written_for_our_packages_only(tmp_path) -> None:
    files = _tree(tmp_path)
    assert bytecode.ensure(tmp_path, ("tools", "reviewer"))
    for name in ("a", "b", "c"):
        assert _cached(files[name]).is_file(), name
    assert not _cached(files["other"]).exists()  # a folder that is not one of the packages is not touched


def test_current_bytecode_is_kept_and_stale_bytecode_rewritten(tmp_path) -> None:
    files = _tree(tmp_path)
    assert bytecode.ensure(tmp_path, ("tools",))
    pyc_a, pyc_b = _cached(files["a"]), _cached(files["b"])
    before = {p: p.stat().st_mtime_ns for p in (pyc_a, pyc_b)}
    assert bytecode.ensure(tmp_path, ("tools",))  # once per process and root: nothing done again
    bytecode._done.clear()
    files["b"].write_text("VALUE = 'changed'\n")
    os.utime(files["b"], ns=(before[pyc_b] + 10**9, before[pyc_b] + 10**9))  # a later edit
    assert bytecode.ensure(tmp_path, ("tools",))
    assert pyc_a.stat().st_mtime_ns == before[pyc_a]  # current: left alone
    assert pyc_b.stat().st_mtime_ns != before[pyc_b]  # stale: written again from the new source
    spec = importlib.util.spec_from_file_location("b_mod", files["b"])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.VALUE == "changed"


def test_a_module_that_does_not_compile_stops_nothing(tmp_path, capsys) -> None:
    files = _tree(tmp_path)
    broken = tmp_path / "tools" / "broken.py"
    broken.write_text("def f(:\n")
    assert bytecode.ensure(tmp_path, ("tools", "reviewer")) is False
    assert _cached(files["a"]).is_file() and _cached(files["c"]).is_file()
    assert not _cached(broken).exists()
    assert capsys.readouterr().out == ""  # nothing printed into the reviewer's own output


def test_a_child_is_launched_after_the_reviewers_bytecode_is_written(tmp_path, monkeypatch) -> None:
    calls: list[tuple[Path, tuple[str, ...], bool]] = []
    real = bytecode.ensure

    def recording(root: Path, packages: tuple[str, ...]) -> bool:
        calls.append((root, packages, started()))
        return real(root, packages)

    worker = SandboxWorker("bytecode", tmp_path / "w", SandboxLimits(startup_timeout_s=120.0))
    started = lambda: worker.proc is not None  # noqa: E731
    monkeypatch.setattr(bytecode, "ensure", recording)
    try:
        worker.launch()
        ready = worker.wait_ready()
        assert ready.answered and ready.ok, ready.failure_text()
    finally:
        worker.close()
    assert calls == [(worker_module._PACKAGE_ROOT, ("tools", "reviewer"), False)]
    # every module a child imports from our packages has current bytecode now (the harness's
    # instruments are imported only in children)
    harness = worker_module._PACKAGE_ROOT / "tools" / "engine" / "harness"
    for source in (harness / "ops.py", *sorted((harness / "instruments").glob("*.py"))):
        pyc = _cached(source)
        assert pyc.is_file() and pyc.stat().st_mtime >= source.stat().st_mtime, source


def test_nothing_is_written_where_a_child_would_not_read_it_or_the_user_said_off(tmp_path, monkeypatch) -> None:
    files = _tree(tmp_path)
    monkeypatch.setenv("KREVIEW_CHILD_BYTECODE", "off")
    assert bytecode.ensure(tmp_path, ("tools",)) is False
    assert not _cached(files["a"]).exists()
    monkeypatch.delenv("KREVIEW_CHILD_BYTECODE")
    bytecode._done.clear()
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    assert bytecode.ensure(tmp_path, ("tools",)) is False
    assert not (tmp_path / "prefix").exists()
    monkeypatch.setattr(sys, "pycache_prefix", None)
    bytecode._done.clear()
    assert bytecode.ensure(tmp_path, ("tools",))
    # level 0, the name a child (no -O) looks for, whatever the parent's own optimisation level
    assert _cached(files["a"]).name == "a.cpython-%d%d.pyc" % sys.version_info[:2]
