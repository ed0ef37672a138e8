"""The workbench's guards: loopback by default, a token elsewhere, CSRF on every form, strict headers.

- Bound to loopback, requests must carry a loopback ``Host`` (a page on another site cannot reach the
  workbench through DNS rebinding).
- Bound elsewhere, every request needs the token printed at start: ``?token=`` once (it is then kept
  in an HttpOnly, SameSite=Strict cookie), or ``Authorization: Bearer``.
- Every POST needs a CSRF token bound to the browser's session cookie (HMAC under a per-process key)
  and, when the browser sends one, an ``Origin`` equal to the workbench's own.
- Pages allow scripts only from the workbench itself (no inline script), so submission text that
  escaped escaping still could not run.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets

from starlette.datastructures import URL
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

SESSION_COOKIE = "kreview_session"
TOKEN_COOKIE = "kreview_token"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
       "base-uri 'none'; frame-ancestors 'none'; connect-src 'self'")
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}


def new_token() -> str:
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    if header.startswith("["):
        return header[: header.find("]") + 1]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    """ASGI middleware applying the rules above to every HTTP request."""

    def __init__(self, app: ASGIApp, *, token: str | None, loopback: bool) -> None:
        self.app = app
        self.token = token
        self.loopback = loopback
        self.key = secrets.token_bytes(32)

    def csrf_for(self, session: str) -> str:
        return hmac.new(self.key, session.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, request: Request, submitted: str) -> bool:
        session = request.cookies.get(SESSION_COOKIE, "")
        return bool(session) and bool(submitted) and hmac.compare_digest(self.csrf_for(session), submitted)

    def _token_ok(self, request: Request) -> str | None:
        """'cookie'/'header'/'query' when the request carries the token, else None."""
        assert self.token is not None
        for where, value in (("cookie", request.cookies.get(TOKEN_COOKIE, "")),
                             ("header", request.headers.get("authorization", "").removeprefix("Bearer ").strip()),
                             ("query", request.query_params.get("token", ""))):
            if value and hmac.compare_digest(value.encode(), self.token.encode()):
                return where
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        host = _host_name(request.headers.get("host", ""))
        if self.loopback and host not in _LOOPBACK_NAMES and not is_loopback(host):
            await PlainTextResponse("this workbench answers only on its loopback address", 421)(scope, receive, send)
            return
        if self.token is not None:
            how = self._token_ok(request)
            if how is None:
                await PlainTextResponse("a token is required: open the URL kreview serve printed", 401)(
                    scope, receive, send)
                return
            if how == "query":  # keep it in a cookie and drop it from the address bar
                url = URL(scope=scope).remove_query_params("token")
                resp = RedirectResponse(str(url), 303)
                resp.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
                await resp(scope, receive, send)
                return
        if request.method not in ("GET", "HEAD", "POST"):
            await PlainTextResponse("method not allowed", 405)(scope, receive, send)
            return
        if request.method == "POST":
            origin = request.headers.get("origin")
            if origin is not None and origin.split("://", 1)[-1] != request.headers.get("host", ""):
                await PlainTextResponse("cross-origin form refused", 403)(scope, receive, send)
                return
        session = request.cookies.get(SESSION_COOKIE)
        new_session = None
        if not session:
            new_session = secrets.token_urlsafe(18)
            scope.setdefault("state", {})["kreview_session"] = new_session

        async def send_wrapped(message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
                            (b"x-frame-options", b"DENY"), (b"referrer-policy", b"same-origin"),
                            (b"cache-control", b"no-store")]
                if new_session:
                    headers.append((b"set-cookie",
                                    f"{SESSION_COOKIE}={new_session}; Path=/; HttpOnly; SameSite=Strict".encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_wrapped)


def session_of(request: Request) -> str:
    return request.cookies.get(SESSION_COOKIE) or request.scope.get("state", {}).get("kreview_session", "")
