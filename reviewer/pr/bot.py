"""The pull-request bot, one entry point per workflow job.

``review_pull_request`` runs in the unprivileged ``pull_request`` job: it reviews the diff and writes
the artifact; it has no token and talks to no API. ``post_draft`` (``workflow_run``) and
``handle_comment`` (``issue_comment``) run in the posting workflow: they never check out or execute
pull-request code, read the artifact as untrusted data, and write to the pull request only through
``GitHubProvider``. Nothing is posted on the code before a maintainer with write permission approves.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from reviewer.core.config import ReviewConfig
from reviewer.core.errors import UsageError
from reviewer.core.models import Review
from reviewer.drafting.base import Drafter
from reviewer.pr.bundle import MAX_ARTIFACT_BYTES, RUNS, BadArtifact, extract_zip, load_bundle, write_bundle
from reviewer.pr.comments import fingerprints_in
from reviewer.pr.diffreview import review_diff
from reviewer.pr.gitdiff import parse_patch
from reviewer.pr.github import GitHubProvider
from reviewer.pr.models import Bundle, PlannedComment, PullRef
from reviewer.pr.render import SUMMARY_MARK, read_state, render_comments, render_summary, state_marker
from reviewer.pr.repoconfig import RepoConfig
from reviewer.pr.resume import resume_in_child

_COMMAND = re.compile(r"^\s*/kreview\s+(approve|reject)\b[ \t]*(.*)$", re.IGNORECASE)
STATE_VERSION = 1
# Rationale: a sign-off note is a sentence or two; longer text is not a reason, it is a payload.
MAX_REASON = 500

Action = Literal["drafted", "approved", "rejected", "refused", "ignored", "nothing_to_review"]


class BotResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Action
    detail: str = ""
    summary_comment: int | None = None
    review: int | None = None
    posted: int = 0


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def read_event(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the Actions event payload {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path} is not an event payload")
    return data


# ---------------------------------------------------------------- job 1: review (no token, no secrets)

def review_pull_request(event: dict[str, Any], event_name: str, repo_path: Path, out: Path, *,
                        repo_config: RepoConfig | None = None, review_config: ReviewConfig | None = None,
                        progress: Callable[[object], None] | None = None, drafter: Drafter | None = None) -> Bundle:
    """Review the pull request's head against its base and write the artifact to ``out``."""
    if event_name != "pull_request":
        raise UsageError(f"`kreview pr review` runs on the pull_request event, not {event_name!r}: on "
                         "pull_request_target it would execute pull-request code with a write token")
    try:
        pr = event["pull_request"]
        pull = PullRef(repo=event["repository"]["full_name"], number=int(pr["number"]),
                       base_sha=pr["base"]["sha"], head_sha=pr["head"]["sha"])
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"the event payload has no pull request: missing {exc}") from exc
    runs = out / RUNS
    runs.mkdir(parents=True, exist_ok=True)
    dr = review_diff(repo_path, pull.base_sha, pull.head_sha, runs_dir=runs, repo_config=repo_config,
                     review_config=review_config, progress=progress, drafter=drafter)
    bundle = Bundle(pull=pull, review=dr)
    write_bundle(out, bundle)
    return bundle


# ---------------------------------------------------------------- shared by the posting jobs

def _summary_comment(gh: GitHubProvider, number: int, bot: str) -> dict[str, Any] | None:
    # only the bot's own comments are trusted: anyone can paste the marker into a comment
    for c in gh.issue_comments(number):
        if (c.get("user") or {}).get("login") == bot and SUMMARY_MARK in (c.get("body") or ""):
            return c
    return None


def _upsert_summary(gh: GitHubProvider, number: int, bot: str, body: str) -> int:
    found = _summary_comment(gh, number, bot)
    if found is not None:
        return int(gh.update_comment(int(found["id"]), body)["id"])
    return int(gh.create_comment(number, body)["id"])


def _fetch_bundle(gh: GitHubProvider, run_id: int, cfg: RepoConfig, dest: Path) -> tuple[Bundle, dict[str, Review]]:
    data = gh.download_artifact(run_id, cfg.github.artifact, max_bytes=MAX_ARTIFACT_BYTES)
    extract_zip(data, dest)
    bundle, reviews = load_bundle(dest)
    if bundle.pull.repo.lower() != gh.repo.lower():
        raise BadArtifact(f"the artifact is for {bundle.pull.repo}, not {gh.repo}")
    return bundle, reviews


def _placeable(gh: GitHubProvider, number: int) -> dict[str, set[int]]:
    """Lines each file's diff adds, as GitHub itself shows the pull request (the final check)."""
    out: dict[str, set[int]] = {}
    for f in gh.pull_files(number):
        added, _ = parse_patch(f.get("patch") or "")
        out[f["filename"]] = {n for r in added for n in range(r.start, r.end + 1)}
    return out


def _plan(gh: GitHubProvider, bundle: Bundle, cfg: RepoConfig) -> tuple[list[PlannedComment], list[PlannedComment], int]:
    """(to post now, over the limit, already posted on an earlier push)."""
    n = bundle.pull.number
    posted: set[str] = set()
    for c in gh.review_comments(n):
        if (c.get("user") or {}).get("login") == cfg.github.bot_login:
            posted |= fingerprints_in(c.get("body") or "")
    lines = _placeable(gh, n)
    fresh, already = [], 0
    for c in bundle.review.comments:
        if c.fingerprint in posted:
            already += 1
        elif set(range(c.start_line or c.line, c.line + 1)) <= lines.get(c.path, set()):
            fresh.append(c)
    return fresh[: cfg.max_comments], fresh[cfg.max_comments:], already


def _state(run_id: int, head: str, status: str, runs: list[str]) -> dict[str, Any]:
    return {"v": STATE_VERSION, "workflow_run": run_id, "head": head, "status": status, "runs": runs}


def _draft_status(n_inline: int) -> str:
    return ("**Draft — awaiting sign-off.** Nothing is posted on the code until a maintainer with write "
            f"permission comments `/kreview approve` (publishes this review with {n_inline} inline "
            "comment(s)) or `/kreview reject [reason]` (withdraws it).")


# ---------------------------------------------------------------- job 2a: workflow_run → draft

def post_draft(gh: GitHubProvider, event: dict[str, Any], cfg: RepoConfig) -> BotResult:
    """Post or edit the summary comment with the draft of a finished review run (nothing inline yet)."""
    wr = event.get("workflow_run") or {}
    if wr.get("event") != "pull_request" or wr.get("conclusion") != "success":
        return BotResult(action="ignored", detail=f"review run {wr.get('id')} is {wr.get('event')}/"
                                                   f"{wr.get('conclusion')}, not a successful pull_request run")
    run_id = int(wr["id"])
    with tempfile.TemporaryDirectory(prefix="kreview-artifact-") as tmp:
        bundle, reviews = _fetch_bundle(gh, run_id, cfg, Path(tmp))
    number = bundle.pull.number
    pr = gh.pull(number)
    head = (pr.get("head") or {}).get("sha")
    if pr.get("state") != "open" or head != wr.get("head_sha") or bundle.pull.head_sha != head:
        return BotResult(action="ignored", detail=f"PR #{number} is {pr.get('state')} at {str(head)[:12]}; the "
                                                  f"review is of {str(wr.get('head_sha'))[:12]} (stale or mismatched)")
    dr = bundle.review
    if not dr.targets and _summary_comment(gh, number, cfg.github.bot_login) is None:
        return BotResult(action="nothing_to_review", detail="no kernel submission touched; nothing posted")
    inline, overflow, already = _plan(gh, bundle, cfg)
    runs = [t.new_run for t in dr.targets if t.new_run and reviews[t.new_run].status == "awaiting_signoff"]
    status = _draft_status(len(inline)) if runs else "No review awaits sign-off for this push."
    body = render_summary(dr, reviews, status=status, inline=inline, overflow=overflow, already=already,
                          state=_state(run_id, head, "awaiting_signoff" if runs else "completed", runs))
    if inline:
        preview = ("<details><summary>Inline comments that approval will post</summary>\n\n"
                   + render_comments(inline) + "\n</details>\n")
        marker_at = body.rfind("<!-- kreview:state ")
        body = body[:marker_at] + preview + "\n" + body[marker_at:]
    cid = _upsert_summary(gh, number, cfg.github.bot_login, body)
    return BotResult(action="drafted", detail=f"draft for {head[:12]} awaits sign-off", summary_comment=cid)


# ---------------------------------------------------------------- job 2b: issue_comment → sign-off

def parse_command(body: str) -> tuple[str, str] | None:
    for line in (body or "").splitlines():
        if line.strip():
            m = _COMMAND.match(line)
            return (m.group(1).lower(), m.group(2).strip()[:MAX_REASON]) if m else None
    return None


def _review_comment(c: PlannedComment) -> dict[str, Any]:
    out: dict[str, Any] = {"path": c.path, "line": c.line, "side": c.side, "body": c.body}
    if c.start_line is not None:
        out |= {"start_line": c.start_line, "start_side": c.side}
    return out


def review_body(bundle: Bundle, reviews: dict[str, Review], by: str, n: int) -> str:
    verdicts = "; ".join(f"`{t.target.dir or '.'}`: **{reviews[t.new_run].overall}**"
                         for t in bundle.review.targets if t.new_run)
    return (f"kreview: {n} inline comment(s) on lines this pull request changed, signed off by @{by}. "
            f"{verdicts}. Each comment cites its evidence and a command that reruns it; the summary comment "
            f"compares the base and head versions criterion by criterion.\n\n"
            f"<!-- kreview:review head={bundle.pull.head_sha} -->")


def handle_comment(gh: GitHubProvider, event: dict[str, Any], cfg: RepoConfig, out: Path | None = None) -> BotResult:
    """``/kreview approve`` or ``/kreview reject [reason]`` on a pull request, from a writer only."""
    issue, comment = event.get("issue") or {}, event.get("comment") or {}
    command = parse_command(comment.get("body") or "")
    user = (comment.get("user") or {}).get("login") or ""
    if event.get("action") != "created" or "pull_request" not in issue or command is None:
        return BotResult(action="ignored", detail="not a /kreview command on a pull request")
    if (comment.get("user") or {}).get("type") == "Bot" or user == cfg.github.bot_login:
        return BotResult(action="ignored", detail="comments by bots are not commands")
    verb, reason = command
    number = int(issue["number"])
    if not gh.can_write(user):
        gh.create_comment(number, f"@{user} `/kreview {verb}` needs write permission on {gh.repo}; "
                                  "nothing was published or withdrawn.")
        return BotResult(action="refused", detail=f"{user} has no write permission")
    summary = _summary_comment(gh, number, cfg.github.bot_login)
    state = read_state(summary["body"]) if summary else None
    if not state or state.get("status") != "awaiting_signoff":
        gh.create_comment(number, f"@{user} no kreview draft awaits sign-off on this pull request.")
        return BotResult(action="ignored", detail="nothing awaits sign-off")
    pr = gh.pull(number)
    head = (pr.get("head") or {}).get("sha")
    if head != state.get("head"):
        gh.create_comment(number, f"@{user} the draft reviews {str(state.get('head'))[:12]} but the pull request "
                                  f"is now at {str(head)[:12]}; sign off once the new draft is posted.")
        return BotResult(action="ignored", detail="the draft is stale")
    run_id = int(state["workflow_run"])
    if gh.workflow_run(run_id).get("head_sha") != head:
        raise BadArtifact(f"workflow run {run_id} did not review {head}")
    with tempfile.TemporaryDirectory(prefix="kreview-artifact-") as tmp:
        root = Path(tmp)
        bundle, reviews = _fetch_bundle(gh, run_id, cfg, root)
        if bundle.pull.number != number or bundle.pull.head_sha != head:
            raise BadArtifact(f"the artifact of run {run_id} is for PR #{bundle.pull.number} at "
                              f"{bundle.pull.head_sha[:12]}, not #{number} at {head[:12]}")
        approve = verb == "approve"
        for rid in state.get("runs") or []:
            if rid in reviews and reviews[rid].status == "awaiting_signoff":
                reviews[rid] = resume_in_child(root / RUNS / rid, approve=approve, by=user, note=reason)
        if out is not None:
            _keep(root, out, {"decision": verb, "by": user, "note": reason, "at": _now(), "pull": number,
                              "head": head, "workflow_run": run_id})
    at = _now()
    if not approve:
        body = (f"{SUMMARY_MARK}\n## kreview\n\n**Withdrawn** — rejected by @{user} at {at}"
                + (f": {reason}" if reason else "") + ". The draft review was not published.\n\n"
                + _marker(run_id, head, "rejected", state))
        gh.update_comment(int(summary["id"]), body)
        return BotResult(action="rejected", detail=f"rejected by {user}", summary_comment=int(summary["id"]))
    inline, overflow, already = _plan(gh, bundle, cfg)
    review_id = None
    if inline:
        made = gh.create_review(number, commit_id=head, body=review_body(bundle, reviews, user, len(inline)),
                                comments=[_review_comment(c) for c in inline])
        review_id = int(made["id"])
    status = (f"**Approved** by @{user} at {at}" + (f": {reason}" if reason else "")
              + f". Published with {len(inline)} new inline comment(s).")
    body = render_summary(bundle.review, reviews, status=status, inline=inline, overflow=overflow, already=already,
                          state={**_state(run_id, head, "approved", list(state.get("runs") or [])), "by": user})
    gh.update_comment(int(summary["id"]), body)
    return BotResult(action="approved", detail=f"approved by {user}", summary_comment=int(summary["id"]),
                     review=review_id, posted=len(inline))


def _marker(run_id: int, head: str, status: str, state: dict[str, Any]) -> str:
    return state_marker(_state(run_id, head, status, list(state.get("runs") or [])))


def _keep(root: Path, out: Path, decision: dict[str, Any]) -> None:
    """Copy the signed runs (their checkpoints record the decision) for the job's artifact upload."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(root, out, dirs_exist_ok=True, symlinks=False)
    (out / "decision.json").write_text(json.dumps(decision, indent=2))
