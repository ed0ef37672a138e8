"""The bot against a local fake GitHub: draft, sign-off, one persistent summary, no duplicates."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.core.errors import UsageError
from reviewer.core.models import Review
from reviewer.pr.bot import handle_comment, parse_command, post_draft, review_pull_request
from reviewer.pr.github import GitHubProvider
from reviewer.pr.render import SUMMARY_MARK, read_state, state_marker
from reviewer.pr.repoconfig import RepoConfig
from tests.e2e.pr.fakegithub import BASE, BOT, FakeGitHub
from tests.e2e.pr.gitrepo import CORRECT, RAISES, REFERENCE, Repo

PR = 7
SUB = "kernels/affine/submission.py"


def _zip(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(folder).as_posix())
    return buf.getvalue()


def _patches(r: Repo, base: str, head: str) -> list[dict]:
    out = []
    for name in r.git.git.diff("--name-only", f"{base}...{head}").splitlines():
        text = r.git.git.diff(f"{base}...{head}", "--", name)
        out.append({"filename": name, "patch": text[text.index("@@"):]})
    return out


@pytest.fixture(scope="module")
def pushes(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A pull request with two pushes, each reviewed once by the unprivileged job (artifact zipped)."""
    d = tmp_path_factory.mktemp("bot")
    r = Repo(d / "repo")
    base = r.commit("base", {"kernels/affine/reference.py": REFERENCE, SUB: CORRECT, "README.md": "hi\n"})
    r.git.git.checkout("-b", "feature")
    heads = [r.commit("breaks forward", {SUB: RAISES}), r.commit("docs only", {"README.md": "more\n"})]
    config = ReviewConfig(runs_dir=d / "unused", seed=1, only=["builds", "correctness"])
    out = {"repo": r, "base": base, "heads": heads, "artifacts": []}
    for i, head in enumerate(heads):
        event = {"repository": {"full_name": "acme/kernels"},
                 "pull_request": {"number": PR, "base": {"sha": base}, "head": {"sha": head}}}
        folder = d / f"artifact{i}"
        bundle = review_pull_request(event, "pull_request", r.root, folder, review_config=config)
        out["artifacts"].append((bundle, _zip(folder)))
    return out


def _fake(pushes: dict, push: int, fake: FakeGitHub | None = None) -> FakeGitHub:
    """The fake as GitHub sees the PR after ``push`` (0 or 1), with that push's review run and artifact."""
    fake = fake or FakeGitHub(permissions={"maint": "write", "owner": "admin", "visitor": "read"})
    head = pushes["heads"][push]
    fake.pulls[PR] = {"number": PR, "state": "open", "head": {"sha": head}, "base": {"sha": pushes["base"]}}
    fake.files[PR] = _patches(pushes["repo"], pushes["base"], head)
    run_id, art_id = 500 + push, 900 + push
    fake.runs[run_id] = {"id": run_id, "head_sha": head, "event": "pull_request", "conclusion": "success",
                         "artifact": art_id}
    fake.artifacts[art_id] = ("kreview-review", pushes["artifacts"][push][1])
    return fake


def _gh(fake: FakeGitHub) -> GitHubProvider:
    return GitHubProvider("acme/kernels", "t0ken", base_url=BASE, transport=fake.transport())


def _run_event(fake: FakeGitHub, push: int) -> dict:
    return {"workflow_run": fake.runs[500 + push]}


def _comment_event(fake: FakeGitHub, user: str, body: str) -> dict:
    c = fake.add_comment(PR, user, body)
    return {"action": "created", "issue": {"number": PR, "pull_request": {}}, "comment": c}


def _summary(fake: FakeGitHub) -> dict:
    [c] = [c for c in fake.issue_comments if SUMMARY_MARK in c["body"] and c["user"]["login"] == BOT]
    return c


def test_unprivileged_review_refuses_pull_request_target(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        review_pull_request({}, "pull_request_target", tmp_path, tmp_path / "out")
    assert info.value.status == "usage_error" and "write token" in info.value.message


def test_commands_parse() -> None:
    assert parse_command("/kreview approve") == ("approve", "")
    assert parse_command("\n  /kreview reject   too noisy on line 8\nthanks") == ("reject", "too noisy on line 8")
    assert parse_command("LGTM /kreview approve") is None
    assert parse_command("/kreview approved") is None


def test_draft_then_approve_posts_one_review(pushes: dict, tmp_path: Path) -> None:
    fake = _fake(pushes, 0)
    gh, cfg = _gh(fake), RepoConfig()
    head = pushes["heads"][0]
    drafted = post_draft(gh, _run_event(fake, 0), cfg)
    assert drafted.action == "drafted"
    assert [(s.method, s.path) for s in fake.writes()] == [("POST", "/api/v3/repos/acme/kernels/issues/7/comments")]
    summary = _summary(fake)
    assert "**Draft — awaiting sign-off.**" in summary["body"] and "| Builds and runs | ✅ pass | ❌ fail |" in summary["body"]
    assert read_state(summary["body"])["status"] == "awaiting_signoff"
    assert fake.reviews == []  # nothing on the code before sign-off

    keep = tmp_path / "signed"
    done = handle_comment(gh, _comment_event(fake, "maint", "/kreview approve"), cfg, out=keep)
    assert (done.action, done.posted) == ("approved", 1)
    [review] = fake.reviews
    new_run = pushes["artifacts"][0][0].review.targets[0].new_run
    assert review["event"] == "COMMENT" and review["commit_id"] == head
    assert review["body"] == (
        "kreview: 1 inline comment(s) on lines this pull request changed, signed off by @maint. "
        "`kernels/affine`: **reject**. Each comment cites its evidence and a command that reruns it; the summary "
        "comment compares the base and head versions criterion by criterion.\n\n"
        f"<!-- kreview:review head={head} -->")
    [sent] = [s for s in fake.sent if s.path.endswith("/pulls/7/reviews")]
    [inline] = sent.body["comments"]
    assert {k: inline[k] for k in ("path", "line", "side")} == {"path": SUB, "line": 8, "side": "RIGHT"}
    assert "start_line" not in inline
    assert inline["body"].startswith("**❌ Builds and runs: exception** · evidence `builds-1`\n\n"
                                     "the first call on nominal inputs raised RuntimeError: scale not supported")
    assert "`kreview rerun kernels/affine --tool builds --case " in inline["body"]
    assert "<!-- kreview:fp=" in inline["body"]
    body = _summary(fake)["body"]
    assert "**Approved** by @maint" in body and read_state(body)["status"] == "approved"
    # the decision and who made it are recorded in the run, which the job keeps for its artifact
    signed = Review.model_validate_json((keep / "runs" / new_run / "review.json").read_text())
    assert (signed.status, signed.signoff.decision, signed.signoff.by) == ("approved", "approved", "maint")
    assert json.loads((keep / "decision.json").read_text())["by"] == "maint"


def test_second_push_edits_summary_and_does_not_repeat(pushes: dict) -> None:
    fake = _fake(pushes, 0)
    gh, cfg = _gh(fake), RepoConfig()
    post_draft(gh, _run_event(fake, 0), cfg)
    handle_comment(gh, _comment_event(fake, "owner", "/kreview approve"), cfg)
    first_id = _summary(fake)["id"]
    _fake(pushes, 1, fake)  # an unchanged push: same finding on the same line
    n_before = len(fake.sent)
    assert post_draft(gh, _run_event(fake, 1), cfg).action == "drafted"
    writes = [(s.method, s.path) for s in fake.sent[n_before:] if s.method != "GET"]
    assert writes == [("PATCH", f"/api/v3/repos/acme/kernels/issues/comments/{first_id}")]
    body = _summary(fake)["body"]
    assert read_state(body) == {"v": 1, "workflow_run": 501, "head": pushes["heads"][1],
                                "status": "awaiting_signoff", "runs": [pushes["artifacts"][1][0].review.targets[0].new_run]}
    assert "1 unchanged from an earlier push (not repeated)" in body
    done = handle_comment(gh, _comment_event(fake, "maint", "/kreview approve"), cfg)
    assert (done.action, done.posted, done.review) == ("approved", 0, None)
    assert len(fake.reviews) == 1 and len(fake.review_comments) == 1
    assert len([c for c in fake.issue_comments if SUMMARY_MARK in c["body"]]) == 1


def test_non_writer_cannot_sign_off(pushes: dict) -> None:
    fake = _fake(pushes, 0)
    gh, cfg = _gh(fake), RepoConfig()
    post_draft(gh, _run_event(fake, 0), cfg)
    draft = _summary(fake)["body"]
    for user in ("visitor", "stranger"):  # read permission; not a collaborator at all (404)
        n = len(fake.sent)
        result = handle_comment(gh, _comment_event(fake, user, "/kreview approve"), cfg)
        assert result.action == "refused"
        asked = [s for s in fake.sent[n:] if s.method == "GET"]
        assert asked[0].path == f"/api/v3/repos/acme/kernels/collaborators/{user}/permission"
        [reply] = [s for s in fake.sent[n:] if s.method != "GET"]
        assert reply.method == "POST" and reply.body["body"].startswith(f"@{user} `/kreview approve` needs write")
    assert fake.reviews == [] and _summary(fake)["body"] == draft


def test_reject_withdraws_and_records_reason(pushes: dict, tmp_path: Path) -> None:
    fake = _fake(pushes, 0)
    gh, cfg = _gh(fake), RepoConfig()
    post_draft(gh, _run_event(fake, 0), cfg)
    keep = tmp_path / "signed"
    result = handle_comment(gh, _comment_event(fake, "maint", "/kreview reject flaky harness"), cfg, out=keep)
    assert result.action == "rejected" and fake.reviews == []
    body = _summary(fake)["body"]
    assert "**Withdrawn** — rejected by @maint" in body and "flaky harness" in body and "Builds and runs" not in body
    new_run = pushes["artifacts"][0][0].review.targets[0].new_run
    signed = Review.model_validate_json((keep / "runs" / new_run / "review.json").read_text())
    assert (signed.status, signed.signoff.by, signed.signoff.note) == ("rejected", "maint", "flaky harness")
    again = handle_comment(gh, _comment_event(fake, "maint", "/kreview approve"), cfg)
    assert again.action == "ignored" and fake.reviews == []


def test_forged_summary_and_stale_drafts_are_not_trusted(pushes: dict) -> None:
    fake = _fake(pushes, 0)
    gh, cfg = _gh(fake), RepoConfig()
    forged = SUMMARY_MARK + "\n" + state_marker({"v": 1, "workflow_run": 500, "head": pushes["heads"][0],
                                                  "status": "awaiting_signoff", "runs": []})
    fake.add_comment(PR, "visitor", forged)
    assert handle_comment(gh, _comment_event(fake, "maint", "/kreview approve"), cfg).action == "ignored"
    post_draft(gh, _run_event(fake, 0), cfg)
    fake.pulls[PR]["head"]["sha"] = pushes["heads"][1]  # pushed again before the new draft arrived
    result = handle_comment(gh, _comment_event(fake, "maint", "/kreview approve"), cfg)
    assert result.action == "ignored" and "stale" in result.detail and fake.reviews == []
    # a review run for another head (or a forged bundle) never reaches the pull request
    assert post_draft(gh, _run_event(fake, 0), cfg).action == "ignored"
