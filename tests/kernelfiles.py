"""Known-bad (and known-good) kernels as files: one defect per file, expected verdicts in its
docstring.

A kernel family is a folder ``tests/kernels/<family>/`` holding the shared reference
(``reference.py``, plus ``task.yml``/``task.py`` for GPU MODE, or ``kreview.toml``) and one
submission per file. Each submission file's docstring has a line

    Expect: correctness=fail, builds=pass, overall=reject

naming the verdicts it must get (criteria not named are not asserted; a CUDA kernel may add an
``Expect on CPU:`` line, the verdicts a machine without a GPU gives). ``materialize`` builds a
submission directory from a family's reference and one file; ``expectations`` reads the line. Every
family is reviewed by the one runner, tests/e2e/test_kernel_verdicts.py.
Python packages in a family's folder (sub-folders with an ``__init__.py``) are helpers every
submission of the family may import; they are copied next to each one.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewer.core.models import Review

KERNELS = Path(__file__).parent / "kernels"
_SHARED = ("reference.py", "task.yml", "task.py", "utils.py", "kreview.toml")


def expectations(path: Path, *, on_cpu: bool = False) -> dict[str, str]:
    """The verdicts the ``Expect:`` line of ``path``'s docstring names; ``on_cpu``: its ``Expect on CPU:``
    line where it has one (a CUDA kernel, which a machine without a GPU cannot run)."""
    # read as text, not through ast: some files are deliberately not valid Python
    lines = [line.strip() for line in path.read_text().splitlines()[:40]]
    for prefix in ("Expect on CPU:", "Expect:") if on_cpu else ("Expect:",):
        for line in lines:
            if line.startswith(prefix):
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


@dataclass(frozen=True)
class Reviewed:
    """One kernel file after its review: what a corpus's own check looks at beyond the verdicts."""

    path: Path  # the kernel file, whose docstring holds the Expect line
    sub: Path  # the submission directory that was reviewed
    review: Review
    want: dict[str, str]

    @property
    def got(self) -> dict[str, str]:
        return {c.id: c.verdict for c in self.review.criteria} | {"overall": self.review.overall}


_TIMING = re.compile(r"seconds|duration", re.I)


def without_timings(item: Any) -> Any:
    """An evidence item's fields (``model_dump(mode="json")``) without the times things took: what two
    reviews that ran the same checks must agree on, however busy the machine was."""
    if isinstance(item, dict):
        return {k: without_timings(v) for k, v in item.items() if not _TIMING.search(k)}
    if isinstance(item, list):
        return [without_timings(v) for v in item]
    return item
