"""A local fake of the few GitHub REST endpoints the bot uses, behind httpx.MockTransport.

It keeps pull requests, comments, reviews, permissions, workflow runs and artifacts in memory and
records every request, so tests assert on exactly what the bot sent. Unknown routes answer 404.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx

BASE = "http://ghe.test/api/v3"
BOT = "github-actions[bot]"


@dataclass
class Sent:
    method: str
    path: str
    params: dict[str, str]
    body: Any


@dataclass
class FakeGitHub:
    repo: str = "acme/kernels"
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    files: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    issue_comments: list[dict[str, Any]] = field(default_factory=list)
    review_comments: list[dict[str, Any]] = field(default_factory=list)
    reviews: list[dict[str, Any]] = field(default_factory=list)
    permissions: dict[str, str] = field(default_factory=dict)
    runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    artifacts: dict[int, tuple[str, bytes]] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)
    _next: int = 1000

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def writes(self) -> list[Sent]:
        return [s for s in self.sent if s.method != "GET"]

    def _id(self) -> int:
        self._next += 1
        return self._next

    def add_comment(self, number: int, user: str, body: str, user_type: str = "User") -> dict[str, Any]:
        c = {"id": self._id(), "body": body, "user": {"login": user, "type": user_type}, "issue_number": number}
        self.issue_comments.append(c)
        return c

    def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        body = json.loads(request.content) if request.content else None
        self.sent.append(Sent(request.method, path, dict(request.url.params), body))
        prefix = "/api/v3/repos/" + self.repo
        if path.startswith("/blob/"):
            return httpx.Response(200, content=self.artifacts[int(path.rsplit("/", 1)[1])][1])
        if not path.startswith(prefix):
            return httpx.Response(404, json={"message": "Not Found"})
        route = path[len(prefix):]
        for pattern, method, fn in self._routes():
            m = re.fullmatch(pattern, route)
            if m and method == request.method:
                return fn(request, body, *m.groups())
        return httpx.Response(404, json={"message": f"no route {request.method} {route}"})

    def _routes(self):
        return [
            (r"/pulls/(\d+)", "GET", lambda r, b, n: self._get(self.pulls.get(int(n)))),
            (r"/pulls/(\d+)/files", "GET", lambda r, b, n: self._page(r, self.files.get(int(n), []))),
            (r"/pulls/(\d+)/comments", "GET", lambda r, b, n: self._page(r, [c for c in self.review_comments
                                                                            if c["pull"] == int(n)])),
            (r"/pulls/(\d+)/reviews", "POST", self._create_review),
            (r"/issues/(\d+)/comments", "GET", lambda r, b, n: self._page(r, [c for c in self.issue_comments
                                                                             if c["issue_number"] == int(n)])),
            (r"/issues/(\d+)/comments", "POST", lambda r, b, n: httpx.Response(201, json=self.add_comment(
                int(n), BOT, b["body"], "Bot"))),
            (r"/issues/comments/(\d+)", "PATCH", self._edit_comment),
            (r"/collaborators/([^/]+)/permission", "GET", self._permission),
            (r"/actions/runs/(\d+)", "GET", lambda r, b, i: self._get(self.runs.get(int(i)))),
            (r"/actions/runs/(\d+)/artifacts", "GET", self._list_artifacts),
            (r"/actions/artifacts/(\d+)/zip", "GET",
             lambda r, b, i: httpx.Response(302, headers={"Location": f"http://blob.test/blob/{i}"})),
        ]

    @staticmethod
    def _get(obj: Any) -> httpx.Response:
        return httpx.Response(200, json=obj) if obj is not None else httpx.Response(404, json={"message": "Not Found"})

    @staticmethod
    def _page(request: httpx.Request, rows: list[Any]) -> httpx.Response:
        per = int(request.url.params.get("per_page", 30))
        page = int(request.url.params.get("page", 1))
        headers = {}
        if page * per < len(rows):  # GitHub announces the next page in a Link header
            headers["Link"] = f'<{request.url.copy_merge_params({"page": page + 1})}>; rel="next"'
        return httpx.Response(200, json=rows[(page - 1) * per: page * per], headers=headers)

    def _create_review(self, request, body, n):
        if self.pulls[int(n)]["head"]["sha"] != body["commit_id"]:
            return httpx.Response(422, json={"message": "commit_id is not the head"})
        review = {"id": self._id(), "body": body["body"], "event": body["event"], "commit_id": body["commit_id"],
                  "user": {"login": BOT, "type": "Bot"}}
        self.reviews.append(review)
        for c in body.get("comments", []):
            self.review_comments.append({**c, "id": self._id(), "pull": int(n), "review_id": review["id"],
                                         "user": {"login": BOT, "type": "Bot"}})
        return httpx.Response(200, json=review)

    def _edit_comment(self, request, body, cid):
        for c in self.issue_comments:
            if c["id"] == int(cid):
                c["body"] = body["body"]
                return httpx.Response(200, json=c)
        return httpx.Response(404, json={"message": "Not Found"})

    def _permission(self, request, body, user):
        if user not in self.permissions:
            return httpx.Response(404, json={"message": f"{user} is not a collaborator"})
        perm = self.permissions[user]
        return httpx.Response(200, json={"permission": perm, "role_name": perm, "user": {"login": user}})

    def _list_artifacts(self, request, body, run):
        rows = [{"id": aid, "name": name, "size_in_bytes": len(data), "expired": False}
                for aid, (name, data) in self.artifacts.items() if self.runs.get(int(run), {}).get("artifact") == aid]
        return httpx.Response(200, json={"total_count": len(rows), "artifacts": rows})
