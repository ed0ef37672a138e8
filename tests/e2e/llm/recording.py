"""Recorded HTTP exchanges for the real ``openai`` client: record once, replay in tests.

Recording puts a loopback server between the client and a chat-completions server (``--upstream``,
e.g. a llama.cpp or vLLM server; by default the scripted fake in support.py) and stores each request
and response. The Authorization header is never stored (the loopback server drops it before
recording, and the upstream key is read from the environment only). Replaying serves the recorded
responses in order and notes any request whose role or response_format differs from the recording
(evidence text may differ run to run: durations are in it).

    python -m tests.e2e.llm.recording assumes_contiguous [--upstream URL --model NAME]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from tests.e2e.llm.support import FakeOpenAIServer, Responder, role_of, scripted_responder

RECORDINGS = Path(__file__).parent / "recordings"
KERNEL_DIR = Path(__file__).resolve().parents[2] / "kernels" / "llm"
SEED = 1234


def proxy_responder(upstream: str) -> Responder:
    import httpx

    key = os.environ.get("KREVIEW_RECORD_UPSTREAM_KEY")
    headers = {"authorization": f"Bearer {key}"} if key else {}

    def respond(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        r = httpx.post(upstream.rstrip("/") + "/chat/completions", json=body, headers=headers, timeout=600)
        return r.status_code, r.json()

    return respond


def summary(exchange: dict[str, Any]) -> dict[str, Any]:
    body = exchange["request"]["body"]
    return {"role": role_of(body["messages"]), "turns": len(body["messages"]),
            "response_format": (body.get("response_format") or {}).get("type")}


class Replayer:
    def __init__(self, recording: dict[str, Any]) -> None:
        self.queue = list(recording["exchanges"])
        self.mismatches: list[str] = []

    def __call__(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if not self.queue:
            self.mismatches.append("a request beyond the recording")
            return 500, {"error": {"message": "nothing recorded for this request"}}
        rec = self.queue.pop(0)
        got, want = summary({"request": {"body": body}}), summary(rec)
        if got != want:
            self.mismatches.append(f"request {got} where the recording has {want}")
        return rec["response"]["status"], rec["response"]["body"]


def record(kernel: str, upstream: str | None, model: str) -> Path:
    from reviewer.api import start_review
    from reviewer.core.config import LLMSettings, ReviewConfig
    from reviewer.llm import make_drafter
    from tests.kernelfiles import materialize

    responder = proxy_responder(upstream) if upstream else scripted_responder()
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(responder) as srv:
        sub = materialize(KERNEL_DIR / f"{kernel}.py", Path(tmp) / kernel)
        settings = LLMSettings(provider="openai", model=model, base_url=srv.base_url, cache=False)
        rv = start_review(sub, ReviewConfig(runs_dir=Path(tmp) / "runs", seed=SEED, signoff=False),
                          drafter=make_drafter(settings))
        out = {"kernel": kernel, "seed": SEED, "model": model,
               "recorded_with": upstream or "tests/e2e/llm/support.py scripted_responder (llama.cpp-style server)",
               "grounding_removed": len(rv.draft.removed) if rv.draft else 0, "exchanges": srv.exchanges}
    RECORDINGS.mkdir(exist_ok=True)
    path = RECORDINGS / f"{kernel}.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel", help="a file stem under tests/kernels/llm")
    ap.add_argument("--upstream", help="base URL of a chat-completions server (default: the scripted fake)")
    ap.add_argument("--model", default="fake-llama", help="model name sent to the server")
    args = ap.parse_args()
    print(record(args.kernel, args.upstream, args.model))


if __name__ == "__main__":
    main()
