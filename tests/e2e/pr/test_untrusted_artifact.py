"""The posting job reads an artifact the pull request controlled: forged content must not run or pass."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import ormsgpack
import pytest

from reviewer.api import start_review
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import SignoffError
from reviewer.pr.bundle import BadArtifact, check_checkpoint, extract_zip
from reviewer.pr.resume import resume_in_child
from reviewer.runs import CHECKPOINT_FILE, checkpointer
from tests.kernelfiles import KERNELS, materialize


def _forge(run_dir: Path, marker: Path) -> None:
    """Plant, in the latest checkpoint, a value whose revival would call os.mkdir(marker)."""
    saver = checkpointer(run_dir)
    try:
        conn = saver.conn
        rowid, kind, blob = conn.execute(
            "SELECT rowid, type, checkpoint FROM checkpoints ORDER BY checkpoint_id DESC LIMIT 1").fetchone()
        cp = saver.serde.loads_typed((kind, blob))
        cp["channel_values"]["overall_reason"] = ormsgpack.Ext(0, ormsgpack.packb(("os", "mkdir", str(marker))))
        kind, blob = saver.serde.dumps_typed(cp)
        conn.execute("UPDATE checkpoints SET type = ?, checkpoint = ? WHERE rowid = ?", (kind, blob, rowid))
        conn.commit()
    finally:
        saver.conn.close()


def test_forged_checkpoint_cannot_call_code_when_resumed(tmp_path: Path, config: ReviewConfig) -> None:
    sub = materialize(KERNELS / "spine" / "wrong_result.py", tmp_path / "sub")
    review = start_review(sub, config.model_copy(update={"signoff": True, "only": ["builds"]}))
    run = Path(review.run_dir)
    marker = tmp_path / "pwned"
    _forge(run, marker)
    control, guarded = tmp_path / "control" / run.name, tmp_path / "guarded" / run.name
    shutil.copytree(run, control)
    shutil.copytree(run, guarded)
    # control: the same forged run resumed the permissive way really does call os.mkdir
    env = {k: v for k, v in os.environ.items() if k != "LANGGRAPH_STRICT_MSGPACK"}
    code = ("import sys; from pathlib import Path; from reviewer.api import signoff; "
            "p = Path(sys.argv[1]); signoff(str(p), p.parent, approve=True, by='x')")
    subprocess.run([sys.executable, "-c", code, str(control)], env=env, capture_output=True, timeout=180, check=False)
    assert marker.is_dir(), "the forgery is not effective, so this test would prove nothing"
    marker.rmdir()
    # the bot's way: strict revival in a child without tokens
    try:
        resume_in_child(guarded, approve=True, by="maint")
    except SignoffError:
        pass
    assert not marker.exists()


def test_checkpoint_with_extra_schema_objects_is_refused(tmp_path: Path) -> None:
    db = tmp_path / CHECKPOINT_FILE
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE checkpoints (x)")
    conn.execute("CREATE TABLE writes (y)")
    conn.commit()
    conn.close()
    check_checkpoint(db)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TRIGGER t AFTER INSERT ON writes BEGIN DELETE FROM checkpoints; END")
    conn.commit()
    conn.close()
    with pytest.raises(BadArtifact):
        check_checkpoint(db)


@pytest.mark.parametrize("name", ["../escape.txt", "/abs.txt", "a/../../b.txt"])
def test_artifact_paths_cannot_escape(tmp_path: Path, name: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(name, "x")
    with pytest.raises(BadArtifact) as info:
        extract_zip(buf.getvalue(), tmp_path / "out")
    assert info.value.status == "bad_artifact"
    assert not (tmp_path / "escape.txt").exists()


def test_artifact_symlinks_are_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("runs/link")
        info.external_attr = (0o120777 << 16)
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(BadArtifact):
        extract_zip(buf.getvalue(), tmp_path / "out")
