"""The shipped workflow templates keep the privilege split the bot's security rests on."""

from __future__ import annotations

from pathlib import Path

import yaml

from reviewer.pr.repoconfig import GitHubSettings

WF = Path(__file__).resolve().parents[4] / ".github" / "workflows"


def _load(name: str) -> tuple[dict, str]:
    text = (WF / name).read_text()
    data = yaml.safe_load(text)
    return {("on" if k is True else k): v for k, v in data.items()}, text


def test_review_job_runs_pr_code_without_write_token_or_secrets() -> None:
    wf, text = _load("kreview-review.yml")
    assert list(wf["on"]) == ["pull_request"]
    assert wf["permissions"] == {"contents": "read"}
    assert "secrets." not in text
    assert all(line.lstrip().startswith("#") for line in text.splitlines() if "pull_request_target" in line)
    steps = wf["jobs"]["review"]["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["persist-credentials"] is False and checkout["with"]["fetch-depth"] == 0
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert upload["with"]["name"] == GitHubSettings().artifact


def test_posting_workflow_never_checks_out_or_interpolates_pr_content() -> None:
    wf, _ = _load("kreview-post.yml")
    review_name = _load("kreview-review.yml")[0]["name"]
    assert set(wf["on"]) == {"workflow_run", "issue_comment"}
    assert wf["on"]["workflow_run"]["workflows"] == [review_name]
    assert wf["permissions"] == {"contents": "read", "actions": "read", "pull-requests": "write", "issues": "write"}
    job = wf["jobs"]["post"]
    assert job["env"]["LANGGRAPH_STRICT_MSGPACK"] == "true"
    for step in job["steps"]:
        if step.get("uses", "").startswith("actions/checkout"):
            assert "ref" not in step["with"] and "repository" not in step["with"]  # the default branch only
            assert step["with"]["sparse-checkout"].split() == ["pyproject.toml", ".kreview.toml"]  # config only
        run = step.get("run", "")
        assert "github.event" not in run and "head" not in run  # no event text in shell, no PR ref
        assert "pip install ." not in run and "pip install -e" not in run


def test_docs_embed_the_shipped_workflows_and_example() -> None:
    docs = (WF.parents[1] / "docs" / "pull-requests.md").read_text()
    for name in ("kreview-review.yml", "kreview-post.yml"):
        assert (WF / name).read_text() in docs, f"docs/pull-requests.md is out of date with {name}"
    example = (WF.parents[1] / "docs" / "examples" / "pr-review-example.json").read_text()
    assert example in docs
