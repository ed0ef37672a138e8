"""``kreview init``: turn a kernel file and a reference into a submission directory in the format they are
written for: KernelBench, GPU MODE or a ``kreview.toml`` manifest (docs/bring-your-own-kernel.md says
what the harness then guarantees)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path
from typing import Annotated, Optional

import typer

from reviewer.cli.common import _guard, app, err, examples
from reviewer.core.errors import UsageError
from tools.engine.formats import formats
from tools.engine.formats.base import InitRequest, SubmissionFormat


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


def _format_for(req: InitRequest) -> SubmissionFormat:
    """The format the two files are written for: the first registered format ``kreview init`` writes
    (``SubmissionFormat.init_order``: a manifest with ``--entry``, GPU MODE, then KernelBench) that says so."""
    table = formats()
    writers = sorted((f for f in table.values() if f.init_order is not None), key=lambda f: (f.init_order, f.name))
    for fmt in writers:
        if fmt.written_for(req):
            return fmt
    raise UsageError("no registered format is written for these files")


def init_submission(dest: Path, kernel: Path, reference: Path, *, gpu: str | None = None,
                    force: bool = False, task: Path | None = None, extra: list[Path] | None = None,
                    entry: str | None = None, ref_entry: str | None = None, inputs: str | None = None,
                    cases: list[str] | None = None) -> list[Path]:
    """Write a submission directory in the format the files are written for and return the files written:

    - KernelBench (``ModelNew`` / ``Model``, ``get_inputs``, ``get_init_inputs``): ``submission.py``,
      ``reference.py``;
    - GPU MODE (``custom_kernel`` / ``generate_input``, ``ref_kernel``, ``check_implementation``): the
      same two plus ``task.yml`` (``--task``, required: its ``tests``/``benchmarks`` are the task's sizes)
      and any ``--extra`` helper file the reference imports (``task.py``);
    - manifest (``--entry``): ``kernel.py``, ``ref.py`` and a ``kreview.toml`` naming ``--entry``,
      ``--ref-entry``, ``--inputs`` and each ``--case`` (JSON parameters).

    Each format writes its own (``SubmissionFormat.scaffold``). Every file is copied unchanged; ``gpu``
    adds ``[target] gpu`` to a ``kreview.toml``."""
    for p in (kernel, reference, *([task] if task else []), *(extra or [])):
        if not p.is_file():
            raise UsageError(f"{p} is not a file")
    req = InitRequest(kernel=kernel, reference=reference, kernel_names=_top_names(kernel),
                      ref_names=_top_names(reference), task=task, extra=list(extra or []), entry=entry,
                      ref_entry=ref_entry, inputs=inputs, cases=list(cases or []))
    scaffold = _format_for(req).scaffold(req)
    files, toml = scaffold.files, list(scaffold.toml)
    if gpu:
        toml += ["[target]", f'gpu = "{gpu}"']
    if dest.exists() and any(dest.iterdir()) and not force:
        raise UsageError(f"{dest} exists and is not empty", hint="pass --force to overwrite its files")
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for name, src in files.items():
        shutil.copyfile(src, dest / name)
        written.append(dest / name)
    if toml:
        (dest / "kreview.toml").write_text("\n".join(toml) + "\n")
        written.append(dest / "kreview.toml")
    return written


@app.command(help="Make a submission directory (KernelBench, GPU MODE or a manifest) from a kernel file and a "
                  "reference; the format follows what the files define."
                  + examples("kreview init mykernel --kernel my_kernel.py --reference ref.py --gpu A100",
                             "kreview init myadd --kernel submission.py --reference reference.py --task task.yml "
                             "--extra task.py",
                             "kreview init myrelu --kernel relu.py --reference ref.py --entry relu --ref-entry "
                             "relu_ref --inputs make_inputs --case '{\"n\": 4096}'"))
def init(
    dest: Annotated[Path, typer.Argument(help="submission directory to create")],
    kernel: Annotated[Path, typer.Option("--kernel", help="your kernel's Python file (ModelNew, custom_kernel, "
                                                          "or the --entry function)")],
    reference: Annotated[Path, typer.Option("--reference", help="the reference's Python file (Model/get_inputs/"
                                                                 "get_init_inputs, GPU MODE's functions, or the "
                                                                 "--ref-entry function)")],
    gpu: Annotated[Optional[str],
                   typer.Option(help="target GPU the virtual device stands in for (H100, A100...)")] = None,
    task: Annotated[Optional[Path], typer.Option("--task", help="GPU MODE: the task.yml with tests/benchmarks")] = None,
    extra: Annotated[Optional[list[Path]], typer.Option("--extra", help="a helper file the code imports "
                                                                          "(repeatable), e.g. GPU MODE's task.py")] = None,
    entry: Annotated[Optional[str], typer.Option("--entry", help="manifest: the kernel function, called as "
                                                                  "entry(*inputs)")] = None,
    ref_entry: Annotated[Optional[str], typer.Option("--ref-entry", help="manifest: the reference function")] = None,
    inputs: Annotated[Optional[str], typer.Option("--inputs", help="manifest: the reference file's "
                                                                    "make_inputs(seed=..., **params)")] = None,
    case: Annotated[Optional[list[str]], typer.Option("--case", help="manifest: one case's parameters as JSON "
                                                                     "(repeatable)")] = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite files in a non-empty DEST")] = False,
) -> None:

    def go() -> None:
        if gpu and '"' in gpu:
            raise UsageError("--gpu must be a plain GPU name such as H100")
        for name in (entry, ref_entry, inputs):
            if name is not None and not name.isidentifier():
                raise UsageError(f"{name!r} is not a Python function name")
        for path in init_submission(dest, kernel, reference, gpu=gpu, force=force, task=task, extra=list(extra or []),
                                    entry=entry, ref_entry=ref_entry, inputs=inputs, cases=list(case or [])):
            err.print(f"wrote {path}", highlight=False, markup=False)
        err.print(f"next: kreview review {dest}", highlight=False, markup=False)

    _guard(go)
