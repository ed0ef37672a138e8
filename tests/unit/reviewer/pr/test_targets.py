"""Which submission directories a change touches."""

from __future__ import annotations

import os
from pathlib import Path

from reviewer.pr.gitdiff import changed_files, open_repo, resolve
from reviewer.pr.repoconfig import RepoConfig
from reviewer.pr.targets import find_targets
from tests.e2e.pr.gitrepo import CORRECT, REFERENCE, TRITON_IMPORTER, TRITON_OP, Repo


def _targets(r: Repo, base: str, head: str, cfg: RepoConfig | None = None):
    repo = open_repo(r.root)
    b, h = resolve(repo, base), resolve(repo, head)
    return {t.dir: t for t in find_targets(b, h, changed_files(repo, b, h), (cfg or RepoConfig()).selects)}


def _base(r: Repo) -> str:
    return r.commit("base", {
        "kernels/affine/reference.py": REFERENCE, "kernels/affine/submission.py": CORRECT,
        "kernels/tri/reference.py": REFERENCE, "kernels/tri/submission.py": TRITON_IMPORTER,
        "kernels/tri/ops/affine.py": TRITON_OP.format(bias="1.0"),
        "shared/ref.py": REFERENCE, "kernels/linked/submission.py": CORRECT,
        "lib/util.py": "X = 1\n", "README.md": "hi\n"})


def test_file_inside_and_imported_module(tmp_path: Path) -> None:
    r = Repo(tmp_path / "repo")
    base = _base(r)
    head = r.commit("head", {"kernels/affine/submission.py": CORRECT + "\n# tuned\n",
                             "kernels/tri/ops/affine.py": TRITON_OP.format(bias="0.5")})
    got = _targets(r, base, head)
    assert sorted(got) == ["kernels/affine", "kernels/tri"]
    assert got["kernels/affine"].reasons == ["kernels/affine/submission.py modified"]
    assert got["kernels/tri"].reasons == ["kernels/tri/ops/affine.py modified"]
    assert got["kernels/affine"].in_base and got["kernels/affine"].in_head


def test_symlinked_reference_and_root_import(tmp_path: Path) -> None:
    r = Repo(tmp_path / "repo")
    os.makedirs(r.root / "kernels" / "linked")
    os.symlink("../../shared/ref.py", r.root / "kernels" / "linked" / "reference.py")
    base = _base(r)
    head = r.commit("head", {"shared/ref.py": REFERENCE.replace("cols = 300", "cols = 301"),
                             "kernels/affine/submission.py": "import lib.util\n" + CORRECT})
    head2 = r.commit("head2", {"lib/util.py": "X = 2\n"})
    got = _targets(r, base, head)
    assert got["kernels/linked"].reasons == ["kernels/linked/reference.py links to shared/ref.py, which changed"]
    assert "kernels/tri" not in got
    later = _targets(r, head, head2)
    assert later["kernels/affine"].reasons == ["kernels/affine/submission.py imports lib/util.py, which changed"]


def test_unrelated_and_excluded_changes_touch_nothing(tmp_path: Path) -> None:
    r = Repo(tmp_path / "repo")
    base = _base(r)
    head = r.commit("docs", {"README.md": "more\n"})
    assert _targets(r, base, head) == {}
    head2 = r.commit("code", {"kernels/affine/submission.py": CORRECT + "\n"})
    assert _targets(r, head, head2, RepoConfig(paths=["kernels/**"], exclude=["kernels/affine/*"])) == {}
    assert list(_targets(r, head, head2, RepoConfig(paths=["kernels/**"]))) == ["kernels/affine"]


def test_new_and_removed_submissions(tmp_path: Path) -> None:
    r = Repo(tmp_path / "repo")
    base = _base(r)
    head = r.commit("move", {"kernels/affine/submission.py": None, "kernels/affine/reference.py": None,
                             "kernels/fresh/reference.py": REFERENCE, "kernels/fresh/submission.py": CORRECT})
    got = _targets(r, base, head)
    assert (got["kernels/affine"].in_base, got["kernels/affine"].in_head) == (True, False)
    assert (got["kernels/fresh"].in_base, got["kernels/fresh"].in_head) == (False, True)
