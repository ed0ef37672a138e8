"""Known-bad (and known-good) kernels as files: one defect per file, expected verdicts in its
docstring.

A kernel family is a folder ``tests/kernels/<family>/`` holding the shared reference
(``reference.py``, plus ``task.yml``/``task.py`` for GPU MODE, or ``kreview.toml``) and one
submission per file. Each submission file's docstring has a line

    Expect: correctness=fail, builds=pass, overall=reject

naming the verdicts it must get (criteria not named are not asserted). ``materialize`` builds a
submission directory from a family's reference and one file; ``expectations`` reads the line.
Python packages in a family's folder (sub-folders with an ``__init__.py``) are helpers every
submission of the family may import; they are copied next to each one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

KERNELS = Path(__file__).parent / "kernels"
_SHARED = ("reference.py", "task.yml", "task.py", "utils.py", "kreview.toml")


def expectations(path: Path) -> dict[str, str]:
    # read as text, not through ast: some files are deliberately not valid Python
    for line in path.read_text().splitlines()[:40]:
        if line.strip().startswith("Expect:"):
            pairs = line.split(":", 1)[1].split(",")
            return dict(p.strip().split("=", 1) for p in pairs if p.strip())
    raise AssertionError(f"{path} has no 'Expect:' line in its docstring")


def submissions(family: str) -> list[Path]:
    folder = KERNELS / family
    return sorted(p for p in folder.glob("*.py") if p.name not in _SHARED)


def materialize(path: Path, dest: Path) -> Path:
    """A submission directory at ``dest`` with the family's reference and ``path`` as submission.py."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in _SHARED:
        src = path.parent / name
        if src.exists():
            shutil.copy(src, dest / name)
    for package in path.parent.iterdir():
        if (package / "__init__.py").is_file():
            shutil.copytree(package, dest / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(path, dest / "submission.py")
    return dest
