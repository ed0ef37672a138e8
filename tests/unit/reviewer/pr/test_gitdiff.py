"""Changed files and line ranges between two commits, and trees written from git objects."""

from __future__ import annotations

import os
from pathlib import Path

from reviewer.pr.gitdiff import changed_files, materialise, merge_base, open_repo, parse_patch, resolve
from reviewer.pr.models import LineRange
from tests.e2e.pr.gitrepo import Repo


def _ranges(rs: list[LineRange]) -> list[tuple[int, int]]:
    return [(r.start, r.end) for r in rs]


def test_changed_ranges_per_status(tmp_path: Path) -> None:
    r = Repo(tmp_path / "repo")
    base = r.commit("base", {"a.py": "1\n2\n3\n4\n", "b.py": "x\ny\nz\nw\n", "gone.py": "g\n", "blob.bin": "\0\1"})
    head = r.commit("head", {"a.py": "1\nTWO\n3\n4\n5\n6\n", "b.py": None, "c.py": "x\ny\nz\nw\nv\n",
                             "gone.py": None, "new.py": "n\nm\n", "blob.bin": "\0\2\3"})
    repo = open_repo(r.root / "a.py")  # any path inside the repository finds it
    files = {f.path: f for f in changed_files(repo, resolve(repo, base), resolve(repo, head))}
    assert sorted(files) == ["a.py", "blob.bin", "c.py", "gone.py", "new.py"]
    assert files["a.py"].status == "modified"
    assert _ranges(files["a.py"].added) == [(2, 2), (5, 6)] and _ranges(files["a.py"].removed) == [(2, 2)]
    assert (files["c.py"].status, files["c.py"].old_path, _ranges(files["c.py"].added)) == ("renamed", "b.py", [(5, 5)])
    assert files["gone.py"].status == "deleted" and _ranges(files["gone.py"].removed) == [(1, 1)]
    assert files["new.py"].status == "added" and _ranges(files["new.py"].added) == [(1, 2)]
    assert files["blob.bin"].binary and not files["blob.bin"].added


def test_merge_base_is_where_the_branch_forked(tmp_path: Path) -> None:
    r = Repo(tmp_path / "repo")
    fork = r.commit("base", {"a.py": "1\n"})
    r.git.git.checkout("-b", "feature")
    head = r.commit("feature", {"b.py": "b\n"})
    r.git.git.checkout("main")
    main = r.commit("main moves on", {"c.py": "c\n"})
    repo = open_repo(r.root)
    mb = merge_base(repo, resolve(repo, main), resolve(repo, head))
    assert mb.hexsha == fork
    assert [f.path for f in changed_files(repo, mb, resolve(repo, head))] == ["b.py"]


def test_parse_patch_with_context_lines() -> None:
    patch = "@@ -1,4 +1,5 @@\n ctx\n-old\n+new\n+more\n ctx\n ctx\n@@ -20,2 +21,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"
    added, removed = parse_patch(patch)
    assert _ranges(added) == [(2, 3), (22, 22)]
    assert _ranges(removed) == [(2, 2), (21, 21)]


def test_materialise_ignores_export_attributes_and_drops_escaping_links(tmp_path: Path) -> None:
    r = Repo(tmp_path / "repo")
    r.write({"sub/ref.py": "ref\n", ".gitattributes": "sub/hidden.py export-ignore\n", "sub/hidden.py": "h\n"})
    os.symlink("ref.py", r.root / "sub" / "link.py")
    os.symlink("/etc/hostname", r.root / "sub" / "abs.py")
    os.symlink("../../outside.py", r.root / "sub" / "up.py")
    sha = r.commit("tree", {})
    out = materialise(resolve(open_repo(r.root), sha), tmp_path / "tree")
    assert (out / "sub" / "hidden.py").read_text() == "h\n"
    assert (out / "sub" / "link.py").read_text() == "ref\n"
    assert not (out / "sub" / "abs.py").exists() and not (out / "sub" / "up.py").is_symlink()
