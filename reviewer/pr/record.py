"""``change.json`` in a pull-request run's folder: the change the run reviewed (its files' diffs
against the merge base and the inline comments planned on changed lines), so the run can show its
diff after the temporary checkout is gone."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import git

from reviewer.pr.gitdiff import blob_text
from reviewer.pr.models import FileChange, PlannedComment, ReviewTarget

CHANGE_FILE = "change.json"
_MAX_FILE_CHARS = 400_000


def _in_target(path: str, target: ReviewTarget) -> bool:
    return not target.dir or path == target.dir or path.startswith(target.dir.rstrip("/") + "/")


def keep_change(run_dir: Path, target: ReviewTarget, files: list[FileChange], base: git.Commit, head: git.Commit,
                comments: list[PlannedComment]) -> None:
    out = []
    for f in files:
        if not _in_target(f.path, target):
            continue
        entry = {"path": f.path, "old_path": f.old_path, "status": f.status, "binary": f.binary, "diff": "",
                 "comments": [{"line": c.line, "start_line": c.start_line, "body": c.body}
                              for c in comments if c.path == f.path]}
        if not f.binary:
            old = blob_text(base, f.old_path or f.path) if f.status != "added" else ""
            new = blob_text(head, f.path) if f.status != "deleted" else ""
            old, new = (old or "")[:_MAX_FILE_CHARS], (new or "")[:_MAX_FILE_CHARS]
            entry["diff"] = "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                                         f"a/{f.old_path or f.path}", f"b/{f.path}", n=3))
        out.append(entry)
    record = {"target": target.dir, "base": base.hexsha, "head": head.hexsha, "files": out}
    try:
        (Path(run_dir) / CHANGE_FILE).write_text(json.dumps(record, indent=1))
    except OSError:
        pass  # the review stands without it; the page then says the diff is not recorded
