"""Review what a change between two revisions touches: the new version (up to sign-off) and, where it
exists, the old one (to completion), side by side.

Each revision's tree is written to a temporary folder from git objects; reviews run there, in the
reviewer's sandbox, never in the user's checkout.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reviewer.api import start_review
from reviewer.fix import with_fixes
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import KReviewError
from reviewer.core.models import Review
from reviewer.drafting.base import Drafter
from reviewer.llm import make_drafter
from reviewer.pr.comments import plan_comments, rank
from reviewer.pr.before_after import compare_criteria, compare_metrics
from reviewer.pr.gitdiff import blob_text, changed_files, materialise, merge_base, open_repo, resolve, unified_diff
from reviewer.pr.models import DiffReview, ReviewTarget, TargetReport
from reviewer.pr.record import keep_change
from reviewer.pr.repoconfig import RepoConfig, config_from_files
from reviewer.pr.targets import find_targets
from reviewer.rubric import load_rubric


def repo_config_at(commit, override: RepoConfig | None = None, notes: list[str] | None = None) -> RepoConfig:
    """The repository configuration as the revision under review has it (``override`` wins)."""
    if override is not None:
        return override
    cfg, said = config_from_files(lambda name: blob_text(commit, name), where=commit.hexsha[:12])
    if notes is not None:
        notes.extend(said)
    return cfg


def drafter_for(config: ReviewConfig) -> Drafter | None:
    """The LLM drafter the loaded configuration names (None: the offline drafter)."""
    if config.llm.provider == "none":
        return None
    return make_drafter(config.llm)


def _with_target(folder: Path, cfg: RepoConfig) -> None:
    """Give a submission without a manifest the repository's ``default_target`` (in the temporary copy)."""
    target = cfg.default_target
    if (target.gpu or target.arch) and not (folder / "kreview.toml").exists():
        arch = ", ".join(f'"{a}"' for a in target.arch)
        gpu = f'gpu = "{target.gpu}"\n' if target.gpu else ""
        (folder / "kreview.toml").write_text(f"[target]\n{gpu}arch = [{arch}]\n")


def _review(folder: Path, config: ReviewConfig, **kw: Any) -> tuple[Review | None, str | None]:
    try:
        return start_review(folder, config, **kw), None
    except KReviewError as exc:
        return None, f"{exc.status}: {exc.message}"


def review_diff(repo_path: str | Path, base: str, head: str, *, runs_dir: Path, repo_config: RepoConfig | None = None,
                seed: int | None = None, review_config: ReviewConfig | None = None,
                progress: Callable[[object], None] | None = None, drafter: Drafter | None = None,
                keep_trees: Path | None = None) -> DiffReview:
    """Review the change ``base..head`` (from their merge base, as a pull request shows it).

    ``review_config`` replaces the configuration derived from ``.kreview.toml`` (tests use it to
    restrict tools); the new version's run keeps its sign-off stop, the old version's does not."""
    repo = open_repo(repo_path)
    b, h = resolve(repo, base), resolve(repo, head)
    mb = merge_base(repo, b, h)
    cfg = repo_config_at(h, repo_config)
    if drafter is None:  # the configuration as the review loads it (the repository file over the environment)
        drafter = drafter_for(cfg.review_config(Path(runs_dir), Path(repo.working_dir or ".")))
    files = changed_files(repo, mb, h)
    targets = find_targets(mb, h, files, cfg.selects)
    if seed is None:  # one seed for both versions, so they see the same cases
        seed = review_config.seed if review_config and review_config.seed is not None else secrets.randbelow(2**31 - 1)
    say = progress or (lambda _m: None)
    out = DiffReview(base=b.hexsha, head=h.hexsha, merge_base=mb.hexsha, files=files,
                     runs_dir=str(Path(runs_dir).resolve()))
    if not targets:
        return out
    # a machine without the sandbox is refused once, for the whole change (exit 2), not per target
    from tools.engine.sandbox.isolation import require

    require()
    work = Path(keep_trees) if keep_trees else Path(tempfile.mkdtemp(prefix="kreview-diff-"))
    cleanup = keep_trees is None
    try:
        head_tree = materialise(h, work / "head")
        base_tree = materialise(mb, work / "base") if cfg.review_old and any(t.in_base for t in targets) else None
        out.trees = {"head": str(head_tree.resolve())} | ({"base": str(base_tree.resolve())} if base_tree else {})
        comments = []
        for t in targets:
            diff = unified_diff(repo, mb, h, t.dir)
            report, planned, notes = _review_target(t, head_tree, base_tree, cfg, files, runs_dir, seed,
                                                    review_config, say, drafter, diff)
            if _not_a_submission(report):
                continue
            if report.new_run:
                keep_change(Path(runs_dir) / report.new_run, t, files, mb, h, planned)
            out.targets.append(report)
            comments += planned
            out.off_diff += notes
        out.comments = rank(comments)
    finally:
        if cleanup:
            shutil.rmtree(work, ignore_errors=True)
    return out


def _not_a_submission(r: TargetReport) -> bool:
    # Rationale: a folder that reads as a submission in neither version only looked like one (a helper
    # module defining ModelNew); a folder that stopped reading as one is a regression and stays.
    errors = [e for e in (r.new_error, r.old_error) if e is not None]
    runs = [x for x in (r.new_run, r.old_run) if x is not None]
    return not runs and bool(errors) and all(e.startswith("not_a_submission") for e in errors)


def _review_target(t: ReviewTarget, head_tree: Path, base_tree: Path | None, cfg: RepoConfig, files, runs_dir: Path,
                   seed: int, review_config: ReviewConfig | None, say, drafter: Drafter | None, diff: str):
    base_config = review_config or cfg.review_config(runs_dir, head_tree)
    base_config = base_config.model_copy(update={"runs_dir": Path(runs_dir), "seed": seed})
    report = TargetReport(target=t)
    new = old = None
    planned, notes = [], []
    if t.in_head:
        folder = head_tree / t.dir
        _with_target(folder, cfg)
        say(f"{t.dir or '.'}: reviewing the new version")
        new, report.new_error = _review(folder, base_config.model_copy(update={"signoff": True}),
                                        progress=say, drafter=drafter, diff=diff)
    if t.in_base and base_tree is not None:
        folder = base_tree / t.dir
        _with_target(folder, cfg)
        say(f"{t.dir or '.'}: reviewing the old version")
        old, report.old_error = _review(folder, base_config.model_copy(update={"signoff": False}), progress=say)
    if new is not None and cfg.fixes and new.overall == "reject":
        say(f"{t.dir or '.'}: trying verified fixes")
        new = with_fixes(new, head_tree / t.dir, base_config, model=getattr(drafter, "model", None))
    if new is not None:
        report.new_run, report.new_status, report.new_overall = new.run_id, new.status, new.overall
        planned, notes = plan_comments(new, t, files, head_tree)
    if old is not None:
        report.old_run, report.old_overall = old.run_id, old.overall
    report.criteria = compare_criteria(old, new)
    if old is not None and new is not None:  # both reviews loaded the rubric, so it loads here too
        report.metrics = compare_metrics(old, new, load_rubric(base_config.rubric).metric_criteria())
    return report, planned, notes
