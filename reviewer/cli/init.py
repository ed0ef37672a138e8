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


_KERNELBENCH_REF = {"Model", "get_inputs", "get_init_inputs"}
_GPUMODE_REF = {"generate_input", "ref_kernel", "check_implementation"}


def _kind(kernel_names: set[str], ref_names: set[str], entry: str | None) -> str:
    """Which format the two files are written for: GPU MODE, KernelBench, or (``--entry``) a manifest."""
    if entry:
        return "manifest"
    if _GPUMODE_REF <= ref_names or "custom_kernel" in kernel_names:
        return "gpumode"
    return "kernelbench"


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

    Every file is copied unchanged; ``gpu`` adds ``[target] gpu`` to a ``kreview.toml``."""
    import json

    for p in (kernel, reference, *([task] if task else []), *(extra or [])):
        if not p.is_file():
            raise UsageError(f"{p} is not a file")
    knames, rnames = _top_names(kernel), _top_names(reference)
    kind = _kind(knames, rnames, entry)
    files: dict[str, Path] = {}
    toml: list[str] = []
    if kind == "kernelbench":
        missing_ref = _KERNELBENCH_REF - rnames
        if missing_ref:
            raise UsageError(f"{reference} lacks {sorted(missing_ref)}",
                             hint="a KernelBench reference defines class Model(nn.Module), get_inputs() and "
                                  "get_init_inputs() at module level; a GPU MODE one generate_input, ref_kernel and "
                                  "check_implementation; for any other pair of functions pass --entry (a manifest)")
        if "ModelNew" not in knames:
            raise UsageError(f"{kernel} defines no ModelNew",
                             hint="wrap the kernel's launcher in class ModelNew(nn.Module) whose forward takes the "
                                  "same inputs as Model.forward (see docs/bring-your-own-kernel.md)")
        files = {"submission.py": kernel, "reference.py": reference}
    elif kind == "gpumode":
        missing_ref = _GPUMODE_REF - rnames
        if missing_ref or "custom_kernel" not in knames:
            what = [*sorted(missing_ref), *([] if "custom_kernel" in knames else [f"custom_kernel in {kernel}"])]
            raise UsageError(f"a GPU MODE submission lacks {what}",
                             hint="the reference defines generate_input, ref_kernel and check_implementation; the "
                                  "kernel file defines custom_kernel(data)")
        if task is None:
            raise UsageError("a GPU MODE submission needs its task.yml (--task): its tests and benchmarks are "
                             "the sizes the review runs")
        files = {"submission.py": kernel, "reference.py": reference, "task.yml": task}
        for p in extra or []:
            files[p.name] = p
    else:
        if entry not in knames:
            raise UsageError(f"{kernel} defines no {entry!r} (--entry)")
        if not ref_entry or ref_entry not in rnames:
            raise UsageError(f"{reference} defines no {ref_entry!r} (--ref-entry)",
                             hint="name the reference function with --ref-entry")
        if not inputs or inputs not in rnames:
            raise UsageError(f"{reference} defines no {inputs!r} (--inputs)",
                             hint="--inputs names a function of the reference file: make_inputs(seed=..., **params) "
                                  "-> list of inputs")
        files = {"kernel.py": kernel, "ref.py": reference}
        for p in extra or []:
            files[p.name] = p
        toml += ["[submission]", 'file = "kernel.py"', f'entry = "{entry}"', "[reference]", 'file = "ref.py"',
                 f'entry = "{ref_entry}"', f'inputs = "{inputs}"']
        for c in cases or []:
            try:
                params = json.loads(c)
                assert isinstance(params, dict)
            except (ValueError, AssertionError):
                raise UsageError(f"--case {c!r} is not a JSON object of parameters, e.g. '{{\"n\": 4096}}'") from None
            inline = ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items())
            toml += ["[[cases]]", f"params = {{ {inline} }}"]
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
