"""Finding the tasks ``kreview audit`` is given: a task folder, a submission folder (its task), or a
benchmark folder holding task folders or KernelBench reference files side by side (level1/1_*.py ...)."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.errors import IngestError, ManifestError, UnsafeSubmissionFile
from reviewer.core.submission import Submission
from reviewer.ingest import _facts, check_tree, load_submission, looked_for, no_such_directory
from tools.engine.formats import format_names, formats


def tasks_in(path: str | Path) -> list[Submission]:
    """The tasks in ``path``; ``IngestError`` (exit 2) when there is none."""
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise IngestError(no_such_directory(path))
    if not root.is_dir():
        raise IngestError(f"{path} is a file; give a task folder (or a folder of tasks). Looked for: {looked_for()}")
    try:
        return [load_submission(root, task_only=True)]
    except (IngestError, UnsafeSubmissionFile) as exc:
        unsafe = exc if isinstance(exc, UnsafeSubmissionFile) else None
    # Rationale: a folder of reference files side by side is read only if it is safe to read whole; an
    # unsafe file there (compiled code, a link out) is said when the folder holds a task, and a folder
    # with no task in it is "no task here", not an error about some file of an unrelated sub-folder
    try:
        files = _reference_files(root)
    except (IngestError, UnsafeSubmissionFile) as exc:
        files, unsafe = [], unsafe or exc
    found = [*files, *_task_folders(root)]
    if found:
        return found
    if unsafe is not None and any(p.suffix == ".py" for p in root.iterdir() if p.is_file()):
        raise unsafe
    raise IngestError(f"{path}: no task here (nor in its sub-folders). Looked for: {looked_for()}")


def _reference_files(root: Path) -> list[Submission]:
    """Each task file of a folder that holds several side by side (a KernelBench level), as each
    registered format finds them (``SubmissionFormat.task_files``)."""
    check_tree(root)
    facts = _facts(root)
    return [task for name in format_names() for task in formats()[name].task_files(root, facts)]


def _task_folders(root: Path) -> list[Submission]:
    out = []
    for sub in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        try:
            out.append(load_submission(sub, task_only=True))
        except (IngestError, ManifestError, UnsafeSubmissionFile):
            continue
    return out
