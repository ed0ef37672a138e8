"""Test doubles for the model: scripted answers per role, and a loopback HTTP server that speaks the
chat completions API (so the real ``openai`` client is exercised end to end).

The server answers like a llama.cpp server: it can refuse ``response_format`` json_schema with a
400 (field notes: llama.cpp's server does), reports usage, adds fields a client must tolerate
(``timings``, ``system_fingerprint``), and records every exchange without the Authorization header.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

ROLES = {"You are a senior GPU kernel engineer reviewing": "static_review", "You plan tests for": "planner",
         "You write the review of": "drafter"}
_EVIDENCE_LINE = re.compile(r"^- ([a-z_]+-\d+) \[(pass|fail|unverified|info)\] \(([^)]*)\)", re.MULTILINE)
_CRITERION_LINE = re.compile(r"^- ([a-z_]+) \(", re.MULTILINE)


def role_of(messages: list[dict[str, str]]) -> str:
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    for marker, role in ROLES.items():
        if marker in system:
            return role
    raise AssertionError(f"unknown role for system prompt {system[:80]!r}")


def is_repair(messages: list[dict[str, str]]) -> bool:
    return messages[-1]["role"] == "user" and messages[-1]["content"].startswith("Your answer could not be used")


def line_of(source: str, needle: str) -> tuple[int, str]:
    for i, line in enumerate(source.splitlines(), 1):
        if needle in line:
            return i, line.strip()
    raise AssertionError(f"{needle!r} not in the source")


# -- canned answers a plausible model would give for tests/kernels/llm ------------------------------
def static_answer(source: str) -> dict[str, Any]:
    load_line, load_text = line_of(source, "tl.load(")
    out_line, out_text = line_of(source, "y = torch.")
    return {"findings": [
        {"category": "unsupported_assumption", "severity": "warning",
         "message": "Flat offsets index the input's storage directly; nothing makes x contiguous, so a "
                    "transposed or sliced input would be read in storage order.",
         "span": {"file": "submission.py", "start_line": load_line, "end_line": load_line, "quote": load_text}},
        {"category": "memory_access", "severity": "info",
         "message": "The output is allocated row-major regardless of the input's layout.",
         "span": {"file": "submission.py", "start_line": out_line, "end_line": out_line, "quote": out_text}},
        # a hallucinated quote: the grounding check must remove it
        {"category": "synchronisation", "severity": "warning",
         "message": "Missing barrier between the load and the store.",
         "span": {"file": "submission.py", "start_line": load_line, "end_line": load_line,
                  "quote": "tl.debug_barrier()"}},
    ]}


def planner_answer(source: str) -> dict[str, Any]:
    load_line, load_text = line_of(source, "tl.load(")
    return {"probes": [
        {"assumption": "the input is contiguous", "finding": "L1", "transforms": [{"kind": "transpose_layout"}],
         "span": {"file": "submission.py", "start_line": load_line, "end_line": load_line, "quote": load_text}},
        {"assumption": "the column count is a multiple of the block", "params": {"cols": 131}},
        {"assumption": "the input has no gaps between rows", "finding": "L1",
         "transforms": [{"kind": "strided_slice", "args": {"step": 2, "dim": -1}}]},
        # not runnable: BLOCK is not a size constant of the reference; the planner check drops it
        {"assumption": "BLOCK divides the size", "params": {"BLOCK": 100}},
    ]}


def drafter_answer(prompt: str) -> dict[str, Any]:
    ids = _EVIDENCE_LINE.findall(prompt)
    criteria = _CRITERION_LINE.findall(prompt.split("Criteria:", 1)[1].split("Evidence:", 1)[0])
    sections = []
    for cid in criteria:
        cited = [i for i, _, crits in ids if cid in crits.split(", ")]
        if cited:
            sections.append({"criterion": cid, "claims": [
                {"text": f"{len(cited)} check(s) bear on {cid}; see the cited evidence.", "evidence": cited[:4]}]})
    failing = [i for i, outcome, _ in ids if outcome == "fail"]
    headline = [{"text": "A layout probe fails while the nominal inputs pass.", "evidence": failing[:2]}] if failing \
        else [{"text": "Every check that ran passed.", "evidence": [i for i, _, _ in ids][:3]}]
    # one claim citing evidence that does not exist, one quoting text that is not in the file
    sections.append({"criterion": "correctness", "claims": [
        {"text": "Correctness was also confirmed on 1000 random seeds.", "evidence": ["correctness-99"]},
        {"text": "The kernel uses shared memory.", "spans": [
            {"file": "submission.py", "start_line": 1, "end_line": 2, "quote": "tl.shared_memory"}]}]})
    return {"headline": headline, "sections": sections}


def answer_for(messages: list[dict[str, str]]) -> dict[str, Any]:
    role = role_of(messages)
    user = next(m["content"] for m in messages if m["role"] == "user")
    source = _file_block(user, "submission.py")
    if role == "static_review":
        return static_answer(source)
    if role == "planner":
        return planner_answer(source)
    return drafter_answer(user)


def _file_block(user: str, name: str) -> str:
    part = user.split(f"File {name} ", 1)[1].split("```\n", 1)[1].split("\n```", 1)[0]
    return "\n".join(re.sub(r"^\s*\d+ \| ", "", line, count=1) for line in part.splitlines())


# -- the loopback server ----------------------------------------------------------------------------
Responder = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]


def completion(content: str, model: str, prompt_tokens: int = 100, completion_tokens: int = 50) -> dict[str, Any]:
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 1767225600, "model": model,
            "system_fingerprint": "b0000-fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
            "timings": {"prompt_n": prompt_tokens, "predicted_n": completion_tokens}}


def scripted_responder(*, reject_json_schema: bool = True) -> Responder:
    """Answers every role from the canned answers above, like a model that reads the prompt."""

    def respond(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        fmt = (body.get("response_format") or {}).get("type")
        if reject_json_schema and fmt == "json_schema":
            return 400, {"error": {"code": 400, "type": "invalid_request_error",
                                   "message": "response_format type json_schema is not supported"}}
        content = json.dumps(answer_for(body["messages"]))
        chars = sum(len(m["content"]) for m in body["messages"])
        return 200, completion(content, body["model"], prompt_tokens=chars // 4, completion_tokens=len(content) // 4)

    return respond


class FakeOpenAIServer:
    """``with FakeOpenAIServer(responder) as srv: srv.base_url`` -> ``http://127.0.0.1:PORT/v1``."""

    def __init__(self, responder: Responder, *, delay_s: float = 0.0) -> None:
        self.responder = responder
        self.delay_s = delay_s
        self.exchanges: list[dict[str, Any]] = []
        self.auth_headers: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                body = json.loads(raw or b"{}")
                outer.auth_headers.append(self.headers.get("authorization"))
                if outer.delay_s:
                    time.sleep(outer.delay_s)
                if not self.path.endswith("/chat/completions"):
                    status, payload = 404, {"error": {"message": f"no route {self.path}"}}
                else:
                    status, payload = outer.responder(body)
                headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"}
                outer.exchanges.append({"request": {"method": "POST", "path": self.path, "headers": headers,
                                                    "body": body},
                                        "response": {"status": status, "body": payload}})
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up (timeout tests)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
