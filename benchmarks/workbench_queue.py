"""How fast the workbench's first page (the queue) loads for a store of 1,000 runs.

    python benchmarks/workbench_queue.py [--runs 1000] [--template RUN_DIR] [--keep DIR]

Builds a store of ``--runs`` runs by copying one real run's ``review.json`` (``--template``, or a fresh
full review of examples/gelu_triton_buggy, about 100 KB) under new run ids, with varied
kernel names, frameworks, statuses and ages. Then, over a real HTTP socket (uvicorn on loopback):

- cold: the first ``GET /`` of a fresh server on a store that has never been indexed (every
  ``review.json`` parsed once, the index written);
- first: the first ``GET /`` of another fresh server (the index exists: what a reviewer sees after the
  store's first listing);
- warm: median of 20 further requests.

Target: ``first`` and ``warm`` under 300 ms. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _template(args: argparse.Namespace, work: Path) -> dict:
    if args.template:
        return json.loads((Path(args.template) / "review.json").read_text())
    from reviewer.api import start_review
    from reviewer.core.config import ReviewConfig

    review = start_review(ROOT / "examples" / "gelu_triton_buggy",
                          ReviewConfig(runs_dir=work / "template", seed=1))
    return json.loads((Path(review.run_dir) / "review.json").read_text())


def build_store(template: dict, runs: Path, n: int) -> None:
    rng = random.Random(0)
    t0 = time.time() - 90 * 86400
    for i in range(n):
        t = t0 + i * (90 * 86400 / n)
        run_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime(t)) + f"-{i:06x}"
        data = dict(template)
        data["run_id"] = run_id
        data["created_at"] = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(t))
        data["submission"] = {**template["submission"], "name": f"kernel_{i % 97}",
                              "framework": rng.choice(["triton", "cuda", "pallas", "nki"])}
        data["status"] = rng.choice(["awaiting_signoff", "approved", "rejected", "completed"])
        data["overall"] = rng.choice(["accept", "reject", "needs_human"])
        (runs / run_id).mkdir()
        (runs / run_id / "review.json").write_text(json.dumps(data))


def _serve(runs: Path):
    import uvicorn

    from reviewer.web.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(runs, port=port), host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    while not srv.started:
        time.sleep(0.02)
    return srv, th, f"http://127.0.0.1:{port}/"


def _get(url: str) -> tuple[float, int]:
    t = time.perf_counter()
    with urllib.request.urlopen(url) as r:
        body = r.read()
    return time.perf_counter() - t, len(body)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--template")
    ap.add_argument("--keep")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="kreview-bench-"))
    runs = work / "runs"
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir(parents=True)
    template = _template(args, work)
    t = time.perf_counter()
    build_store(template, runs, args.runs)
    built = time.perf_counter() - t
    out: dict = {"runs": args.runs, "review_json_bytes": len(json.dumps(template)), "store_build_s": round(built, 2)}
    srv, th, url = _serve(runs)
    out["cold_ms"], size = _get(url)
    srv.should_exit = True
    th.join()
    srv, th, url = _serve(runs)
    out["first_ms"], _ = _get(url)
    warm = [_get(url)[0] for _ in range(20)]
    out["warm_median_ms"] = statistics.median(warm)
    out["warm_max_ms"] = max(warm)
    review_url = url + "runs/" + max(p.name for p in runs.iterdir() if not p.name.startswith("."))
    out["review_page_ms"] = statistics.median(_get(review_url)[0] for _ in range(5))
    srv.should_exit = True
    th.join()
    for k in ("cold_ms", "first_ms", "warm_median_ms", "warm_max_ms", "review_page_ms"):
        out[k] = round(out[k] * 1000, 1)
    out["page_bytes"] = size
    out["target_ms"] = 300
    out["ok"] = out["first_ms"] < 300 and out["warm_median_ms"] < 300
    print(json.dumps(out, indent=2))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if out["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
