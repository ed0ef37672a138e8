"""``kreview diff`` (review a change locally) and ``kreview pr review|publish`` (the GitHub bot)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from reviewer.cli.common import Only, OutFormat, RunsDir, _guard, app, err, examples, require_extra
from reviewer.cli.progress import reporter
from reviewer.core.config import default_runs_dir
from reviewer.core.errors import UsageError

TREES_DIR = "_trees"  # beside the run directories: each diff's head and base trees, which its reruns name

pr_app = typer.Typer(no_args_is_help=True, help="The GitHub pull-request bot (run from GitHub Actions).")
app.add_typer(pr_app, name="pr")

ConfigFile = Annotated[Optional[Path], typer.Option("--repo-config",
                                                    help="a pyproject.toml with \\[tool.kreview] (or an old "
                                                         ".kreview.toml) instead of the repository's")]
OldConfigFile = Annotated[Optional[Path], typer.Option("--config", hidden=True,
                                                       help="deprecated spelling of --repo-config")]


def _repo_config_flag(named: Path | None, old: Path | None) -> Path | None:
    """``--repo-config``, or the deprecated ``--config`` (with a note: in ``kreview review`` that flag
    named the user's own file, now ``--user-config``)."""
    if old is None:
        return named
    _say(["--config is deprecated here, use --repo-config (your own settings file is kreview review "
          "--user-config)"])
    return named or old


def _say(notes: list[str]) -> None:
    for note in notes:
        err.print(f"[yellow]note[/]: {escape(note)}", highlight=False, soft_wrap=True)


@app.command("diff", help="Review what BASE..HEAD changes: touched submissions, old vs new per criterion, "
                          "findings on changed lines."
                          + examples("kreview diff main HEAD", "kreview diff origin/main my-branch --format markdown",
                                     "kreview diff HEAD~1 HEAD --repo ../kernels --only correctness"))
def diff(
    base: Annotated[str, typer.Argument(help="base revision (the diff starts at its merge base with HEAD)")],
    head: Annotated[str, typer.Argument(help="head revision")],
    repo: Annotated[Path, typer.Option("--repo", help="path inside the git repository")] = Path("."),
    fmt: Annotated[OutFormat, typer.Option("--format", help="output on stdout")] = OutFormat.text,
    runs_dir: RunsDir = None,
    repo_config: ConfigFile = None,
    old_config: OldConfigFile = None,
    seed: Annotated[Optional[int], typer.Option(help="master seed for both versions (random if omitted)")] = None,
    only: Only = None,
    max_comments: Annotated[Optional[int], typer.Option("--max-comments", help="inline comments to show", min=0)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
) -> None:
    def go() -> None:
        from reviewer.pr.diffreview import repo_config_at, review_diff
        from reviewer.pr.gitdiff import open_repo, resolve
        from reviewer.pr.render import render_comments, render_summary
        from reviewer.pr.repoconfig import load_config_file
        from reviewer.runs import ensure_ignored, new_run_id, read_review

        if fmt in (OutFormat.sarif, OutFormat.junit):
            raise UsageError(f"--format {fmt.value} describes one review: use it with kreview review or "
                             "kreview show RUN on a run that diff prints")
        runs = runs_dir or default_runs_dir()
        notes: list[str] = []
        config = _repo_config_flag(repo_config, old_config)
        if config is not None and not config.is_file():
            raise UsageError(f"{config}: no such configuration file")
        cfg = (load_config_file(config, notes) if config
               else repo_config_at(resolve(open_repo(repo), head), notes=notes))
        _say(notes)
        provider = (cfg.review.get("llm") or {}).get("provider", "none")
        if provider != "none":
            require_extra("llm", "openai", what=f"the configuration's llm.provider = {provider!r}")
        if only:
            cfg = cfg.with_review(only=list(only))
        if max_comments is not None:
            cfg = cfg.model_copy(update={"max_comments": max_comments})
        # the trees are kept beside the runs (not in a temporary folder) so every rerun command stays valid
        trees = Path(runs) / TREES_DIR / new_run_id()
        ensure_ignored(trees)
        with reporter(quiet) as progress:
            result = review_diff(repo, base, head, runs_dir=runs, repo_config=cfg, seed=seed, progress=progress,
                                 keep_trees=trees)
        if fmt is OutFormat.json:
            sys.stdout.write(result.model_dump_json(indent=2) + "\n")
            return
        reviews = {t.new_run: read_review(Path(result.runs_dir) / t.new_run) for t in result.targets if t.new_run}
        waiting = [r for r in reviews.values() if r.status == "awaiting_signoff"]
        status = (f"Draft: {len(waiting)} run(s) await sign-off (`kreview signoff RUN --approve|--reject --by NAME`)."
                  if waiting else "Completed.")
        inline, rest = result.comments[: cfg.max_comments], result.comments[cfg.max_comments:]
        sys.stdout.write(render_summary(result, reviews, status=status, inline=inline, overflow=rest, details=False))
        if inline:
            sys.stdout.write("\n## Inline comments\n\n" + render_comments(inline))
        sys.stdout.write("\n")

    _guard(go)


def _event(path: Path | None) -> tuple[dict, Path]:
    from reviewer.pr.bot import read_event

    where = path or (Path(os.environ["GITHUB_EVENT_PATH"]) if os.environ.get("GITHUB_EVENT_PATH") else None)
    if where is None:
        raise UsageError("no event payload: pass --event or run inside GitHub Actions (GITHUB_EVENT_PATH)")
    return read_event(where), where


EventOpt = Annotated[Optional[Path], typer.Option("--event", help="Actions event payload \\[env GITHUB_EVENT_PATH]")]
EventName = Annotated[Optional[str], typer.Option("--event-name", help="the event's name \\[env GITHUB_EVENT_NAME]")]


@pr_app.command("review", help="Unprivileged job (pull_request, read-only token, no secrets): review the PR, "
                                "write the artifact." + examples("kreview pr review --out kreview-out"))
def pr_review(
    event: EventOpt = None,
    event_name: EventName = None,
    repo: Annotated[Path, typer.Option("--repo", help="the checkout (base and head commits fetched)")] = Path("."),
    out: Annotated[Path, typer.Option("--out", help="folder to upload as the review artifact")] = Path("kreview-out"),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress on stderr")] = False,
) -> None:
    def go() -> None:
        require_extra("github", "githubkit", what="kreview pr")
        from reviewer.pr.bot import review_pull_request
        from reviewer.pr.render import render_summary
        from reviewer.runs import read_review

        payload, _ = _event(event)
        name = event_name or os.environ.get("GITHUB_EVENT_NAME", "")
        with reporter(quiet) as progress:
            bundle = review_pull_request(payload, name, repo, out, progress=progress)
        dr = bundle.review
        reviews = {t.new_run: read_review(Path(dr.runs_dir) / t.new_run) for t in dr.targets if t.new_run}
        summary = render_summary(dr, reviews, status="Review artifact written; the posting workflow drafts it.",
                                 inline=dr.comments, details=False)
        step = os.environ.get("GITHUB_STEP_SUMMARY")
        if step:
            with open(step, "a") as fh:
                fh.write(summary + "\n")
        err.print(f"[dim]{len(dr.targets)} submission(s) reviewed; artifact in {out}[/]", highlight=False)

    _guard(go)


@pr_app.command("publish", help="Posting job (workflow_run / issue_comment): never runs PR code; drafts, then "
                                  "publishes after sign-off." + examples("kreview pr publish --out kreview-signed",
                                                                         "kreview pr publish --repo-config pyproject.toml"))
def pr_publish(
    event: EventOpt = None,
    event_name: EventName = None,
    repo_config: Annotated[Optional[Path], typer.Option("--repo-config",
                                                        help="the trusted configuration from the default "
                                                        "branch: a pyproject.toml with \\[tool.kreview] or an old "
                                                        ".kreview.toml (default: whichever the current directory "
                                                        "has)")] = None,
    old_config: OldConfigFile = None,
    api_url: Annotated[Optional[str], typer.Option("--api-url", help="REST base URL \\[env GITHUB_API_URL]")] = None,
    repository: Annotated[Optional[str], typer.Option("--repository", help="OWNER/NAME \\[env GITHUB_REPOSITORY]")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="keep the signed runs here (for an artifact)")] = None,
) -> None:
    def go() -> None:
        require_extra("github", "githubkit", what="kreview pr")
        from reviewer.pr.bot import handle_comment, post_draft
        from reviewer.pr.github import GitHubProvider
        from reviewer.pr.repoconfig import load_config_file, load_repo_config

        payload, _ = _event(event)
        name = event_name or os.environ.get("GITHUB_EVENT_NAME", "")
        notes: list[str] = []
        named = _repo_config_flag(repo_config, old_config)
        if named is not None and not named.is_file():  # workflows from before [tool.kreview] name a file
            notes.append(f"{named} not found; using the current directory's configuration")  # that may be absent
            named = None
        cfg = load_config_file(named, notes) if named is not None else load_repo_config(Path("."), notes)
        _say(notes)
        token = os.environ.get("GITHUB_TOKEN")
        if not token:
            raise UsageError("GITHUB_TOKEN is not set: the posting job needs a token with pull-requests: write")
        repo = repository or os.environ.get("GITHUB_REPOSITORY") or (payload.get("repository") or {}).get("full_name")
        if not repo:
            raise UsageError("no repository: pass --repository OWNER/NAME")
        gh = GitHubProvider(repo, token, base_url=api_url or cfg.github.api_url)
        if name == "workflow_run":
            result = post_draft(gh, payload, cfg)
        elif name == "issue_comment":
            result = handle_comment(gh, payload, cfg, out=out)
        else:
            raise UsageError(f"`kreview pr publish` handles workflow_run and issue_comment events, not {name!r}")
        sys.stdout.write(result.model_dump_json() + "\n")

    _guard(go)
