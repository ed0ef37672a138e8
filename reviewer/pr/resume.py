"""Resume a run's sign-off in a child process: ``python -m reviewer.pr.resume RUN_DIR DECISION BY [NOTE]``.

The posting job calls this on a run directory that came from an untrusted artifact. The child starts
with ``LANGGRAPH_STRICT_MSGPACK=true`` (so the checkpoint can only revive LangGraph's allowlisted
types, never an arbitrary callable) and an environment without any token; the parent reads back only
the validated ``review.json``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pydantic import ValidationError

from reviewer.core.errors import SignoffError
from reviewer.core.models import Review

# Rationale: resuming replays only the sign-off and publish nodes; a minute is ample even on a busy runner.
RESUME_TIMEOUT_S = 180
_KEEP_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


def resume_in_child(run_dir: Path, *, approve: bool, by: str, note: str = "") -> Review:
    env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
    env["LANGGRAPH_STRICT_MSGPACK"] = "true"
    cmd = [sys.executable, "-m", "reviewer.pr.resume", str(run_dir), "approve" if approve else "reject", by, note]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=RESUME_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired as exc:
        raise SignoffError(f"resuming run {run_dir.name} timed out after {RESUME_TIMEOUT_S}s") from exc
    if proc.returncode != 0:
        raise SignoffError(f"resuming run {run_dir.name} failed (exit {proc.returncode}): {proc.stderr[-1500:]}")
    try:
        return Review.model_validate_json(proc.stdout)
    except ValidationError as exc:
        raise SignoffError(f"resuming run {run_dir.name} printed no valid review: {exc}") from exc


def main(argv: list[str]) -> int:
    try:  # confirm the library honoured the variable (a private flag: absent means we cannot tell)
        from langgraph.checkpoint.serde import _msgpack
        strict = bool(_msgpack.STRICT_MSGPACK_ENABLED)
    except (ImportError, AttributeError):
        strict = False
    if not strict:
        print("refusing: LANGGRAPH_STRICT_MSGPACK is not enabled", file=sys.stderr)
        return 2
    from reviewer.api import signoff

    run_dir, decision, by = Path(argv[0]), argv[1], argv[2]
    note = argv[3] if len(argv) > 3 else ""
    if decision not in ("approve", "reject"):
        print(f"decision must be approve or reject, not {decision!r}", file=sys.stderr)
        return 2
    review = signoff(str(run_dir), run_dir.parent, approve=decision == "approve", by=by, note=note)
    sys.stdout.write(review.model_dump_json())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
