"""What changed between two revisions (gitpython), and each revision's tree written to a folder.

Only git objects are read: nothing here touches the user's working tree or runs repository code.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

import git
from gitdb.exc import BadName, BadObject

from reviewer.core.errors import UsageError
from reviewer.core.lines import runs
from reviewer.core.unidiff import diff_lines
from reviewer.pr.models import FileChange, LineRange

# Rationale: a tree bigger than this is not a kernel repository we should copy wholesale into /tmp.
MAX_TREE_BYTES = 512 * 1024 * 1024


def open_repo(path: str | Path) -> git.Repo:
    try:
        return git.Repo(Path(path), search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise UsageError(f"{path} is not inside a git repository") from exc


def resolve(repo: git.Repo, rev: str) -> git.Commit:
    try:
        return repo.commit(rev)
    except (BadName, BadObject, ValueError, git.GitCommandError) as exc:
        raise UsageError(f"{rev!r} is not a revision of {repo.working_dir}") from exc


def merge_base(repo: git.Repo, base: git.Commit, head: git.Commit) -> git.Commit:
    """Where ``head`` forked from ``base``: a pull request's diff is taken from there (GitHub's three dots)."""
    found = repo.merge_base(base, head)
    if not found:
        raise UsageError(f"{base.hexsha[:12]} and {head.hexsha[:12]} share no history")
    return found[0]


def _ranges(lines: list[int]) -> list[LineRange]:
    return [LineRange(start=a, end=b) for a, b in runs(lines)]


def parse_patch(patch: str) -> tuple[list[LineRange], list[LineRange]]:
    """Added (new side) and removed (old side) line ranges of a unified diff body, any context size."""
    lines = list(diff_lines(patch))
    return (_ranges([d.new for d in lines if d.kind == "add" and d.new is not None]),
            _ranges([d.old for d in lines if d.kind == "del" and d.old is not None]))


def _status(d: git.Diff) -> str:
    # with create_patch gitpython leaves change_type unset; its flags carry the same facts
    if d.new_file:
        return "added"
    if d.deleted_file:
        return "deleted"
    if d.renamed_file:
        return "renamed"
    if getattr(d, "copied_file", False):
        return "copied"
    if d.a_mode and d.b_mode and stat.S_IFMT(d.a_mode) != stat.S_IFMT(d.b_mode):
        return "type_changed"
    return "modified"


def changed_files(repo: git.Repo, base: git.Commit, head: git.Commit) -> list[FileChange]:
    """Files changed from ``base`` to ``head`` with their changed line ranges (renames followed)."""
    out: list[FileChange] = []
    for d in base.diff(head, create_patch=True, unified=0, M=True):
        status = _status(d)
        raw = d.diff if isinstance(d.diff, bytes) else (d.diff or "").encode()
        binary = raw.startswith(b"Binary files") or b"\nBinary files" in raw[:400]
        added, removed = ([], []) if binary else parse_patch(raw.decode("utf-8", errors="replace"))
        path = d.b_path if status != "deleted" else d.a_path
        old_path = d.a_path if status in ("renamed", "copied") else None
        out.append(FileChange(path=path, old_path=old_path, status=status, added=added, removed=removed,
                              binary=binary))
    return sorted(out, key=lambda f: f.path)


MAX_DIFF_CHARS = 40_000
"""The most of a diff the drafter's planner is shown (like one source file: reviewer/llm/prompt_source.py)."""


def unified_diff(repo: git.Repo, base: git.Commit, head: git.Commit, under: str = "") -> str:
    """The unified diff ``base..head`` of the files under the folder ``under`` ("" for the whole tree),
    renames followed; cut at ``MAX_DIFF_CHARS`` with a note."""
    text = repo.git.diff(base.hexsha, head.hexsha, "-M", "--", under or ".")
    if len(text) > MAX_DIFF_CHARS:
        text = text[:MAX_DIFF_CHARS] + f"\n... (diff cut at {MAX_DIFF_CHARS} characters)"
    return text


def tree_files(commit: git.Commit) -> Iterator[git.Blob]:
    """Every file blob (regular, executable, symlink) of a commit's tree; submodules are skipped."""
    for item in commit.tree.traverse():
        if isinstance(item, git.Blob):
            yield item


def blob_text(commit: git.Commit, path: str) -> str | None:
    try:
        return (commit.tree / path).data_stream.read().decode("utf-8", errors="replace")
    except KeyError:
        return None


def materialise(commit: git.Commit, dest: Path, selects: Callable[[str], bool] = lambda p: True) -> Path:
    """Write ``commit``'s tree (the files ``selects`` keeps) under ``dest``.

    Blobs are written from the object database rather than through ``git archive`` so that the
    tree's own ``.gitattributes`` (export-ignore, export-subst) cannot hide or rewrite files; a symlink
    is kept only when it points inside the tree."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    total = 0
    links: list[tuple[Path, str]] = []
    for blob in tree_files(commit):
        rel = PurePosixPath(blob.path)
        if rel.is_absolute() or ".." in rel.parts or not selects(blob.path):
            continue
        target = root.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = blob.data_stream.read()
        total += len(data)
        if total > MAX_TREE_BYTES:
            raise UsageError(f"{commit.hexsha[:12]}: the selected tree is over {MAX_TREE_BYTES >> 20} MiB; "
                             "narrow `paths` in .kreview.toml")
        if stat.S_ISLNK(blob.mode):
            links.append((target, data.decode("utf-8", errors="replace")))
            continue
        target.write_bytes(data)
        if blob.mode & 0o111:
            target.chmod(0o755)
    for link, to in links:
        if not os.path.isabs(to):
            link.symlink_to(to)
    for link, _ in links:  # resolved only once all exist, so chains of links are followed for real
        if link.is_symlink():
            real = link.resolve()
            if not (real == root or root in real.parents):
                link.unlink()
    return dest
