"""The reference's answers kept on disk across reviews of one task (issue 34).

Every kernel of a task is compared with the same reference answers: a case's inputs and expected
outputs, the integrity probe's two expected outputs, the reference's counted work. A review that finds
each of its reference requests here starts no reference child at all (``SandboxSession``: the child is
started at the first request that misses), which is a child's start-up (torch's import, about 1.5 s of
CPU) and the reference's runs saved per review in a batch, a calibration, a rerun, a comparison, a PR
with many kernels of one task, and a test suite.

An entry is one request's answer: the reply's result and the files it wrote, under a key of everything
the answer is a function of:
- the task (``task_body``): the reference's ``load`` request with the folder's path taken out, the
  SHA-256 of every file the reference child is given (the submission's file is not given to it:
  tools/engine/session.py), the child's environment, preludes and configuration (device, CUDA shim,
  virtual GPU, intra-op threads: a reduction's rounding can depend on the thread count), the device,
  kreview's code and the library versions (tools/engine/code_version.py);
- the request: its name, its payload with the transfer paths replaced by their role (``<in:N>`` with the
  SHA-256 of the file read, ``<out:N>`` for a file written), so the same case of the same task under the
  same seed is the same key wherever the session's folder is.

An entry is served only when its stored key body equals the one computed now, and every file's size and
SHA-256 match (a truncated, corrupt or colliding entry is a miss, never a stale answer). Only requests the
reference answered without error are kept: a failure or a hang may come from the machine, and is run again.
The reference is the task's code: what it writes is read through the session's safe reads before it is kept.

Limits: an entry over ``MAX_ENTRY_BYTES`` is not kept; the store is trimmed to ``MAX_STORE_BYTES`` (oldest
use first) when a session closes after the sessions since the last trim kept ``TRIM_EVERY`` of it (a
trim reads every entry: a third of a second for a full store, which every review paid; issue 34). So the
store is at most that much over its limit between trims. ``KREVIEW_REFERENCE_CACHE`` names the folder, or ``off``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = 1
"""Bumped when an entry's layout or what a key holds changes."""
# Rationale: the answers worth keeping are a reference child's start-up and a few runs; a case of hundreds of
# MB is cheaper to compute again than to keep, and a cache folder must not grow into a disk's worth
MAX_ENTRY_BYTES = 32 * 2**20
MAX_STORE_BYTES = 2 * 2**30
TRIM_EVERY = 0.05
"""The fraction of ``MAX_STORE_BYTES`` kept since the last trim that makes a closing session trim."""
_ENTRY = "entry.json"
_LEDGER = ".kept-since-trim"


def default_dir() -> Path | None:
    """``$KREVIEW_REFERENCE_CACHE`` (``off``: no store), else ``$XDG_CACHE_HOME/kreview/reference``."""
    chosen = os.environ.get("KREVIEW_REFERENCE_CACHE")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kreview" / "reference"


def _mark_name(run: str) -> str:
    return ".run-" + hashlib.sha256(run.encode()).hexdigest()[:16]


def key_of(body: dict[str, Any]) -> str:
    return hashlib.sha256(_canonical(body).encode()).hexdigest()


def _canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class Stored:
    """One kept answer: the reply's ``result`` and the files it wrote, by their ``<out:N>`` name."""

    result: dict[str, Any]
    files: dict[str, bytes]


class ReferenceStore:
    """The entries of one task (``task_body``) under ``root``."""

    def __init__(self, root: Path, task_body: dict[str, Any]) -> None:
        self.root = Path(root)
        self.task_body = {"schema": SCHEMA, **task_body}
        self.folder = self.root / key_of(self.task_body)[:32]
        self.hits = 0
        self.misses = 0
        self.kept = 0
        """Answers this store object wrote (the session trims the store at its close only after one)."""
        self.kept_bytes = 0
        """Their files' bytes (``trim_due``)."""
        self._marked: set[str] = set()

    def seen(self, run: str | None = None) -> bool:
        """Whether answers of this task are kept, for the review named ``run`` (its master seed: a review
        under another seed asks for other cases, so it would miss), or for any review where ``run`` is
        None. Where they are, the reference child is not started ahead."""
        if run is not None:
            return (self.folder / _mark_name(run)).exists()
        try:
            with os.scandir(self.folder) as entries:
                return any(not e.name.startswith(".") for e in entries)
        except OSError:
            return False

    def mark(self, run: str) -> None:
        """Note that the review named ``run`` kept answers here (``seen(run)``); best effort, once per store
        object (the session calls it after every answer it keeps)."""
        if run in self._marked:
            return
        try:
            (self.folder / _mark_name(run)).touch()
        except OSError:
            return
        self._marked.add(run)

    def body(self, op: str, payload: Any, inputs: dict[str, str]) -> dict[str, Any]:
        return {"task": self.task_body, "op": op, "payload": payload, "inputs": inputs}

    def _path(self, body: dict[str, Any]) -> Path:
        return self.folder / key_of(body)[:40]

    def get(self, body: dict[str, Any]) -> Stored | None:
        path = self._path(body)
        try:
            entry = json.loads((path / _ENTRY).read_text())
            if _canonical(entry["key"]) != _canonical(json.loads(_canonical(body))):
                return self._miss()
            files: dict[str, bytes] = {}
            for item in entry["files"]:
                data = (path / item["blob"]).read_bytes()
                if len(data) != item["size"] or hashlib.sha256(data).hexdigest() != item["sha256"]:
                    return self._miss()
                files[item["name"]] = data
            result = entry["result"]
            if not isinstance(result, dict):
                return self._miss()
        except (OSError, ValueError, KeyError, TypeError):
            return self._miss()
        try:
            os.utime(path)  # its last use, for the trim
        except OSError:
            pass
        self.hits += 1
        return Stored(result=result, files=files)

    def _miss(self) -> None:
        self.misses += 1
        return None

    def put(self, body: dict[str, Any], result: dict[str, Any], files: dict[str, bytes]) -> None:
        """Keep one answer; a store that cannot be written costs a rerun, never the review."""
        size = sum(len(d) for d in files.values())
        if size > MAX_ENTRY_BYTES:
            return
        path = self._path(body)
        if path.exists():
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=self.folder, prefix=".new-"))
            try:
                items = []
                for i, (name, data) in enumerate(sorted(files.items())):
                    blob = f"file-{i}"
                    (tmp / blob).write_bytes(data)
                    items.append({"name": name, "blob": blob, "size": len(data),
                                  "sha256": hashlib.sha256(data).hexdigest()})
                (tmp / _ENTRY).write_text(json.dumps({"key": body, "result": result, "files": items}, default=str))
                os.rename(tmp, path)  # all there or absent; another review that kept it first wins
                self.kept += 1
                self.kept_bytes += size
            finally:
                if tmp.exists():
                    shutil.rmtree(tmp, ignore_errors=True)
        except OSError:
            return


def trim_due(root: Path, kept_bytes: int, limit: int = MAX_STORE_BYTES) -> bool:
    """Add ``kept_bytes`` to what the store's sessions kept since its last trim; True (and the count
    starts again) once that reaches ``TRIM_EVERY`` of ``limit``. Two sessions closing at once may lose
    one's count: the trim then comes a little later, never wrongly."""
    ledger = root / _LEDGER
    try:
        since = int(ledger.read_text() or 0)
    except (OSError, ValueError):
        since = 0
    since += kept_bytes
    due = since >= limit * TRIM_EVERY
    try:
        ledger.write_text("0" if due else str(since))
    except OSError:
        return True  # no ledger to keep: trim as every session did
    return due


def trim(root: Path, limit: int = MAX_STORE_BYTES) -> None:
    """Remove the least recently used entries until the store holds at most ``limit`` bytes."""
    entries: list[tuple[float, int, Path]] = []
    try:
        for task in os.scandir(root):
            if not task.is_dir(follow_symlinks=False):
                continue
            for entry in os.scandir(task.path):
                if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                    continue
                size = sum(f.stat(follow_symlinks=False).st_size for f in os.scandir(entry.path))
                entries.append((entry.stat(follow_symlinks=False).st_mtime, size, Path(entry.path)))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    if total <= limit:
        return
    cutoff = time.time()
    for mtime, size, path in sorted(entries):
        if total <= limit * 0.8 or mtime > cutoff:
            break
        shutil.rmtree(path, ignore_errors=True)
        total -= size
