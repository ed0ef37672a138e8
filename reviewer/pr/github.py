"""The GitHub REST calls the bot makes, through githubkit (base URL configurable for GitHub Enterprise).

Responses are read as plain JSON: the bot needs a handful of fields and must not break when GitHub adds
or omits others. githubkit's own retry policy applies (a rate limit waits for its reset and retries once,
a 5xx is retried three times with backoff) and its paginator follows GitHub's ``Link`` headers. Every
failure that remains becomes ``GitHubError`` with the call that failed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import httpx
from githubkit import GitHub
from githubkit.exception import GitHubException, RequestFailed

from reviewer.core.errors import GitHubError

DEFAULT_API = "https://api.github.com"
# GitHub's own maximum page size: fewest requests for long lists.
PAGE = 100
WRITERS = frozenset({"admin", "maintain", "write"})


def api_url(configured: str | None = None) -> str:
    """CLI/config value, else the runner's GITHUB_API_URL (set on GitHub Enterprise too), else github.com."""
    return configured or os.environ.get("GITHUB_API_URL") or DEFAULT_API


class GitHubProvider:
    """One repository's pull-request operations."""

    def __init__(self, repo: str, token: str | None, *, base_url: str | None = None,
                 transport: httpx.BaseTransport | None = None, auto_retry: Any = True) -> None:
        if "/" not in repo:
            raise GitHubError(f"repository must be OWNER/NAME, not {repo!r}")
        self.owner, self.name = repo.split("/", 1)
        self.repo = repo
        self._gh = GitHub(token, base_url=api_url(base_url), transport=transport, auto_retry=auto_retry,
                          http_cache=False, user_agent="kernel-reviewer")

    def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        try:
            return fn(self.owner, self.name, *args, **kw)
        except RequestFailed as exc:
            raise GitHubError(f"GitHub {what} failed: HTTP {exc.response.status_code}: "
                              f"{exc.response.raw_response.text[:300]}") from exc
        except (GitHubException, httpx.HTTPError) as exc:
            raise GitHubError(f"GitHub {what} failed: {type(exc).__name__}: {exc}") from exc

    def _pages(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> list[dict[str, Any]]:
        pages = self._gh.rest.paginate(fn, lambda resp: resp.json(), self.owner, self.name, *args, per_page=PAGE, **kw)
        try:
            return list(pages)
        except RequestFailed as exc:
            raise GitHubError(f"GitHub {what} failed: HTTP {exc.response.status_code}: "
                              f"{exc.response.raw_response.text[:300]}") from exc
        except (GitHubException, httpx.HTTPError) as exc:
            raise GitHubError(f"GitHub {what} failed: {type(exc).__name__}: {exc}") from exc

    # pull requests
    def pull(self, number: int) -> dict[str, Any]:
        return self._call("get pull request", self._gh.rest.pulls.get, number).json()

    def pull_files(self, number: int) -> list[dict[str, Any]]:
        return self._pages("list pull request files", self._gh.rest.pulls.list_files, number)

    def review_comments(self, number: int) -> list[dict[str, Any]]:
        return self._pages("list review comments", self._gh.rest.pulls.list_review_comments, number)

    def create_review(self, number: int, *, commit_id: str, body: str, comments: list[dict[str, Any]],
                      event: str = "COMMENT") -> dict[str, Any]:
        return self._call("create review", self._gh.rest.pulls.create_review, number,
                          data={"commit_id": commit_id, "body": body, "event": event, "comments": comments}).json()

    # conversation comments
    def issue_comments(self, number: int) -> list[dict[str, Any]]:
        return self._pages("list comments", self._gh.rest.issues.list_comments, number)

    def create_comment(self, number: int, body: str) -> dict[str, Any]:
        return self._call("create comment", self._gh.rest.issues.create_comment, number, data={"body": body}).json()

    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        return self._call("update comment", self._gh.rest.issues.update_comment, comment_id,
                          data={"body": body}).json()

    # permissions
    def permission(self, user: str) -> str:
        """``admin``, ``maintain``, ``write``, ``triage``, ``read`` or ``none`` (not a collaborator)."""
        try:
            data = self._gh.rest.repos.get_collaborator_permission_level(self.owner, self.name, user).json()
        except RequestFailed as exc:
            if exc.response.status_code == 404:
                return "none"
            raise GitHubError(f"GitHub permission check for {user!r} failed: HTTP {exc.response.status_code}") from exc
        except (GitHubException, httpx.HTTPError) as exc:
            raise GitHubError(f"GitHub permission check for {user!r} failed: {exc}") from exc
        role = data.get("role_name")
        return role if role in ("maintain", "triage") else str(data.get("permission") or "none")

    def can_write(self, user: str) -> bool:
        return self.permission(user) in WRITERS

    # Actions artifacts
    def workflow_run(self, run_id: int) -> dict[str, Any]:
        return self._call("get workflow run", self._gh.rest.actions.get_workflow_run, run_id).json()

    def download_artifact(self, run_id: int, name: str, *, max_bytes: int) -> bytes:
        rows = self._call("list artifacts", self._gh.rest.actions.list_workflow_run_artifacts, run_id,
                          name=name).json().get("artifacts", [])
        rows = [a for a in rows if a.get("name") == name and not a.get("expired")]
        if not rows:
            raise GitHubError(f"workflow run {run_id} has no artifact named {name!r} (expired or never uploaded)")
        art = rows[0]
        if int(art.get("size_in_bytes") or 0) > max_bytes:
            raise GitHubError(f"artifact {name!r} of run {run_id} is over {max_bytes} bytes")
        resp = self._call("download artifact", self._gh.rest.actions.download_artifact, int(art["id"]), "zip")
        data = resp.raw_response.content
        if len(data) > max_bytes:
            raise GitHubError(f"artifact {name!r} of run {run_id} is over {max_bytes} bytes")
        return data
