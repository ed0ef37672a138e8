"""``kreview fix DIR [--apply]``: review a submission (or read a stored review of it), then offer only the
patches whose rerun in the sandbox passed (reviewer/fix; docs/fixes.md)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from reviewer.cli.common import (
    DeviceOpt,
    LLMProvider,
    RunsDir,
    Timeout,
    _guard,
    app,
    configure,
    err,
    examples,
    require_extra,
    setting,
)
from reviewer.core.config import LLMSettings, default_runs_dir
from reviewer.core.errors import UsageError
from reviewer.core.fixes import FixReport

BACKUP_SUFFIX = ".kreview-orig"


def _review(path: Path, run: str | None, config):
    from reviewer.runs import find_run, read_review

    if run is None:
        from reviewer.api import start_review
        from reviewer.cli.progress import reporter

        with reporter(False) as progress:
            return start_review(path, config, progress=progress)
    review = read_review(find_run(run, config.runs_dir))
    if Path(review.submission.root).resolve() != path.resolve():
        raise UsageError(f"run {review.run_id} reviewed {review.submission.root}, not {path}")
    return review


def _apply(path: Path, file: str, original: str, patched: str) -> Path:
    """Patch the working tree in place, keeping the original beside it."""
    target = path / file
    if target.read_text() != original:
        raise UsageError(f"{target} changed since it was reviewed; rerun kreview fix")
    backup = target.with_name(target.name + BACKUP_SUFFIX)
    shutil.copy2(target, backup)
    target.write_text(patched)
    return backup


def _say(report: FixReport) -> None:
    for d in report.dropped:
        err.print(f"dropped {d.kind} ({d.criterion}, origin {escape(d.origin)}): {escape(d.why)}", highlight=False,
                  soft_wrap=True)
    for note in report.notes:
        err.print(f"model fixer: {escape(note)}", highlight=False, soft_wrap=True)
    if not report.fixes:
        err.print(f"[bold]no verified fix[/]: {escape(report.note or 'no candidate verified')}", highlight=False,
                  soft_wrap=True)


@app.command(help="Offer verified patches for a rejected submission: rule-based candidates from the review's "
                  "evidence, each rerun in the sandbox on a copy; only one whose failing cases now pass (and "
                  "nothing that passed fails) is written. --apply applies every verified fix whose lines overlap no "
                  "earlier one, after one rerun of them together (if together they fail: only the first). "
                  "Exit 0: a patch was written or applied; 1: no verified fix."
                  + examples("kreview fix examples/gelu_triton_buggy",
                             "kreview fix kernels/softmax --out softmax.patch",
                             "kreview fix kernels/softmax --apply",
                             "kreview fix kernels/softmax --run 20261204-190000-abcdef --format json"))
def fix(
    path: Annotated[Path, typer.Argument(help="submission directory")],
    apply_: Annotated[bool, typer.Option("--apply", help="patch the submission file in place (the original is kept "
                                         f"as <file>{BACKUP_SUFFIX})")] = False,
    out: Annotated[Optional[Path], typer.Option("--out", help="where the patch goes (default: kreview-fix.patch "
                                                "in the current directory)")] = None,
    run: Annotated[Optional[str], typer.Option("--run", help="a stored review of DIR to fix from, instead of "
                                               "reviewing it again")] = None,
    seed: Annotated[Optional[int], typer.Option(help="master seed of the review (random if omitted)")] = None,
    fmt: Annotated[str, typer.Option("--format", help="text (the patch on stdout too) or json (the FixReport)")
                   ] = "text",
    llm: Annotated[Optional[LLMProvider], setting("--llm", help="also ask the model for a patch where no rule fixes "
                                                  "a criterion (verified by the same rerun; none: rules only)",
                                                  model=LLMSettings, name="provider")] = None,
    model: Annotated[Optional[str], typer.Option(help="model name", envvar="KREVIEW_MODEL", show_envvar=True)] = None,
    device: DeviceOpt = None,
    timeout: Timeout = None,
    runs_dir: RunsDir = None,
) -> None:
    def go() -> None:
        from reviewer.fix import fix_review

        if fmt not in ("text", "json"):
            raise UsageError(f"--format {fmt!r}: use text or json")
        if not path.is_dir():
            raise UsageError(f"{path} is not a directory holding a submission")
        user = None
        if llm is LLMProvider.openai:
            from reviewer.llm.settings import user_layer

            user = user_layer(None)
        config = configure(cli=dict(runs_dir=runs_dir or default_runs_dir(), seed=seed, device=device,
                                    timeout=timeout, signoff=False,
                                    llm=dict(provider=llm.value if llm else None, model=model)), user=user)
        chat = None
        if config.llm.provider == "openai":
            require_extra("llm", "openai", what="--llm openai")
            from reviewer.llm import make_model
            from reviewer.llm.settings import resolve

            chat = make_model(resolve(config.llm))
        review = _review(path, run, config)
        original = (path / review.submission.submission_file).read_text()
        report = fix_review(review, path, config, model=chat)
        _say(report)
        if fmt == "json":
            sys.stdout.write(report.model_dump_json(indent=2) + "\n")
        if not report.fixes:
            raise typer.Exit(1)
        first = report.fixes[0]  # --out writes the first; --apply every one that combines (reviewer/fix/combine.py)
        patch = first.diff
        if apply_:
            from reviewer.fix.combine import combine

            both = combine(review, path, config, report.fixes, original)
            for f, why in both.left_out:
                err.print(f"not applied: {f.id} ({f.kind}, {f.criterion}): {escape(why)}", highlight=False,
                          soft_wrap=True)
            backup = _apply(path, first.file, original, both.patched)
            names = ", ".join(f"{f.id} ({f.kind})" for f in both.applied)
            again = "; the combined patch verified on one rerun" if both.reverified else ""
            only = " only the first fix," if both.together else ""
            err.print(f"applied{only} {names} to {escape(str(path / first.file))}{again}; original kept as "
                      f"{escape(str(backup))}", highlight=False, soft_wrap=True)
            patch = both.diff
        else:
            dest = out or Path("kreview-fix.patch")
            dest.write_text(patch)
            err.print(f"wrote {escape(str(dest))}: {escape(first.description)} ({first.criterion}, origin "
                      f"{escape(first.origin)}), verified by rerunning "
                      f"{', '.join(first.tools)}; apply it inside {escape(str(path))}: "
                      f"patch -p1 < {escape(str(dest.resolve()))}",
                      highlight=False, soft_wrap=True)
        if fmt == "text":
            sys.stdout.write(patch)

    _guard(go)
