"""``kreview audit``'s cache on disk: one task's audit, kept under a key of everything it depends on.

The key is the SHA-256 of the canonical JSON of ``key_body``:
- the task as ingested (format, framework, reference file, cases, tolerance, its folder) and the
  content of the files its sandbox child is given (``task_files``);
- the audit's master seed, the run settings a tool reads (limits, tolerance overrides, budget,
  target GPU) and the device kind the reference runs on;
- the audit's own code: kreview's version and a digest of every Python source of the ``reviewer``
  and ``tools`` packages (any edit of kreview is a miss, not only one of the audit's modules;
  tools/engine/code_version.py);
- the library versions the reference computes with (torch, triton, jax, jaxlib, numpy) and Python's.

An entry holds the key body beside the audit, and is served only when the stored body equals the
one computed now: a corrupt entry, a truncated one or a hash collision is a miss, never a stale
answer. Only complete audits are stored: one with a failed or hung reference, or kreview's own
error, may come from the machine (a timeout under load, a child that could not start) and is rerun.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

# SKIPPED_DIRS: what ingest never reads and the sandbox never copies into a child, so never part of a task
from reviewer.core.submission import SKIPPED_DIRS, Submission
from reviewer.core.task import TaskAudit
# what the audit's answers depend on beyond the task (shared with the reference store)
from tools.engine.code_version import code_version, library_versions

SCHEMA = 1
"""Bumped when an entry's layout changes."""
# Rationale: outcomes that can come from the machine rather than the task: rerun, never kept
_NOT_KEPT = {"audit_error", "reference_not_run", "reference_failed", "reference_hang",
             "reference_probes_failed", "reference_probes_hang"}


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kreview" / "audit"


def task_files(task: Submission, siblings: set[str]) -> dict[str, str]:
    """SHA-256 of each file of the task's folder its child is given, by relative path.

    ``siblings``: the other task files of the same folder (a benchmark level, ``level1/*.py``). They
    are left out unless the reference names one (an import of a sibling), so editing one task of a
    level does not invalidate the others. Rationale: a reference reaches a sibling's code only by
    naming it; one that builds the name at run time is outside the key (docs/task-audit.md)."""
    root = task.root_path
    reference = (root / task.reference_file).read_text(errors="replace") if task.reference_file else ""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if rel in siblings and Path(rel).stem not in reference:
                continue
            if path.is_symlink() or not path.is_file():
                continue  # never copied into the child (tools/engine/session.py)
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def key_body(task: Submission, siblings: set[str], *, seed: int, options: dict[str, Any],
             device: Any) -> dict[str, Any]:
    dev = dataclasses.asdict(device) if dataclasses.is_dataclass(device) else dict(device)
    return {"schema": SCHEMA, "code": code_version(), "libraries": library_versions(),
            "task": task.model_dump(mode="json"), "files": task_files(task, siblings), "seed": seed,
            "options": options, "device": {k: dev.get(k) for k in ("kind", "name", "capability")}}


def key_of(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()


def keepable(result: TaskAudit) -> bool:
    return not any(f.kind in _NOT_KEPT for f in result.findings)


class AuditCache:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, body: dict[str, Any]) -> TaskAudit | None:
        key = key_of(body)
        try:
            entry = json.loads(self._path(key).read_text())
            # the stored body must be the one asked for, compared in full (as JSON reads it back)
            if entry["key"] != json.loads(json.dumps(body, default=str)):
                return None
            return TaskAudit.model_validate(entry["audit"])
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            return None

    def put(self, body: dict[str, Any], result: TaskAudit) -> None:
        if not keepable(result):
            return
        path = self._path(key_of(body))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "w") as fh:
                    json.dump({"key": body, "audit": result.to_json()}, fh, default=str)
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except OSError:
            return  # Rationale: a cache that cannot be written costs a rerun, never the audit
