"""Review data never leaves the machine through LangChain/LangSmith tracing, whatever the user's
environment says: a local endpoint set as the tracing target receives nothing."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading

from tests.conftest import EXAMPLES


def test_langsmith_tracing_is_forced_off(tmp_path) -> None:
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def _any(self) -> None:
            hits.append(f"{self.command} {self.path}")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        do_GET = do_POST = do_PATCH = do_PUT = _any

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env = {**os.environ, "LANGSMITH_TRACING": "true", "LANGCHAIN_TRACING_V2": "true", "LANGSMITH_ENDPOINT": url,
           "LANGCHAIN_ENDPOINT": url, "LANGSMITH_API_KEY": "lsv2-test-key-0123456789",
           "LANGCHAIN_API_KEY": "lsv2-test-key-0123456789"}
    try:
        out = subprocess.run([sys.executable, "-m", "reviewer.cli", "review", str(EXAMPLES / "softmax_triton"),
                              "--only", "builds", "--no-signoff", "--format", "json",
                              "--runs-dir", str(tmp_path / "runs")],
                             capture_output=True, text=True, env=env, timeout=300, check=False)
    finally:
        server.shutdown()
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)["status"] == "completed"
    assert hits == []
