"""``kreview init``: turn a kernel file and a reference into a KernelBench-style submission directory
(docs/bring-your-own-kernel.md says what the harness then guarantees)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path
from typing import Annotated, Optional

import typer

from reviewer.cli.common import _guard, app, err, examples
from reviewer.errors import UsageError


def _top_names(path: Path) -> set[str]:
    try:
        tree = ast.parse(path.read_text(), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} cannot be read as Python: {exc}") from None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def init_submission(dest: Path, kernel: Path, reference: Path, *, gpu: str | None = None,
                    force: bool = False) -> list[Path]:
    """Write ``dest/submission.py`` (the kernel file, unchanged), ``dest/reference.py`` and, with
    ``gpu``, a ``kreview.toml`` naming the target. Returns the files written."""
    for p in (kernel, reference):
        if not p.is_file():
            raise UsageError(f"{p} is not a file")
    missing_ref = {"Model", "get_inputs", "get_init_inputs"} - _top_names(reference)
    if missing_ref:
        raise UsageError(f"{reference} lacks {sorted(missing_ref)}",
                         hint="a KernelBench reference defines class Model(nn.Module), get_inputs() and "
                              "get_init_inputs() at module level")
    if "ModelNew" not in _top_names(kernel):
        raise UsageError(f"{kernel} defines no ModelNew",
                         hint="wrap the kernel's launcher in class ModelNew(nn.Module) whose forward takes the "
                              "same inputs as Model.forward (see docs/bring-your-own-kernel.md)")
    if dest.exists() and any(dest.iterdir()) and not force:
        raise UsageError(f"{dest} exists and is not empty", hint="pass --force to overwrite its files")
    dest.mkdir(parents=True, exist_ok=True)
    written = [dest / "submission.py", dest / "reference.py"]
    shutil.copyfile(kernel, written[0])
    shutil.copyfile(reference, written[1])
    if gpu:
        toml = dest / "kreview.toml"
        toml.write_text(f'[target]\ngpu = "{gpu}"\n')
        written.append(toml)
    return written


@app.command(help='Make a KernelBench-style submission directory from a kernel file and a reference.'
                  + examples("kreview init mykernel --kernel my_kernel.py --reference ref.py",
                              "kreview init mykernel --kernel my_kernel.py --reference ref.py --gpu A100"))
def init(
    dest: Annotated[Path, typer.Argument(help="submission directory to create")],
    kernel: Annotated[Path, typer.Option("--kernel", help="Python file defining ModelNew (your kernel)")],
    reference: Annotated[Path, typer.Option("--reference", help="Python file defining Model, get_inputs, "
                                                                 "get_init_inputs")],
    gpu: Annotated[Optional[str],
                   typer.Option(help="target GPU the virtual device stands in for (H100, A100...)")] = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite files in a non-empty DEST")] = False,
) -> None:

    def go() -> None:
        if gpu and '"' in gpu:
            raise UsageError("--gpu must be a plain GPU name such as H100")
        for path in init_submission(dest, kernel, reference, gpu=gpu, force=force):
            err.print(f"wrote {path}", highlight=False, markup=False)
        err.print(f"next: kreview review {dest}", highlight=False, markup=False)

    _guard(go)
