"""compute-sanitizer's optional flags are passed only where its ``--help`` names them: a flag a
release dropped stops it before the child starts, and the check is left undone (on an H200 the
initcheck child 'exited with status 1 without answering')."""

from __future__ import annotations

from pathlib import Path

from tools.engine.backends.compute_sanitizer import SANITIZER_TOOLS, same_file_lines, supported

OPTIONS = [("--print-limit", "50"), ("--track-unused-memory", "no"), ("--racecheck-report", "all")]


def _fake(tmp_path: Path, help_text: str) -> str:
    exe = tmp_path / "compute-sanitizer"
    exe.write_text(f"#!/bin/sh\ncat <<'EOF'\n{help_text}\nEOF\n")
    exe.chmod(0o755)
    return str(exe)


def test_flags_its_help_does_not_name_are_left_out(tmp_path: Path) -> None:
    exe = _fake(tmp_path, "  --print-limit arg   ...\n  --racecheck-report arg  ...")
    assert supported(exe, OPTIONS) == ["--print-limit", "50", "--racecheck-report", "all"]


def test_without_a_readable_help_every_flag_is_kept(tmp_path: Path) -> None:
    assert supported(str(tmp_path / "missing"), OPTIONS) == ["--print-limit", "50", "--track-unused-memory", "no",
                                                             "--racecheck-report", "all"]


def test_a_reported_line_of_the_submission_file_is_that_line() -> None:
    m = same_file_lines("submission.py")
    assert m("/sandbox/role/src/submission.py", 12) == 12 and m("/x/triton/language/core.py", 3) is None
    assert SANITIZER_TOOLS == ("memcheck", "racecheck", "initcheck", "synccheck")
