"""What runs on the node that gets a review: the public ``start_review`` (so the review is the normal
sandboxed one, whatever the sandbox is), and the run directory packed to travel back to the driver."""

from __future__ import annotations

import io
import json
import socket
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reviewer import __version__
from reviewer.core.config import ReviewConfig
from reviewer.core.errors import BatchError
from reviewer.runs import REVIEW_FILE, write_atomic

MAX_ARCHIVE_BYTES = 256 * 2**20


def node_name() -> str:
    return socket.gethostname()


@contextmanager
def runs_dir_for(config: ReviewConfig, ship: bool) -> Iterator[ReviewConfig]:
    """The config a review runs with on this node: the store's runs directory when the driver shares
    this filesystem (``ship=False``), else a scratch directory whose run is packed and sent back."""
    if not ship:
        yield config
        return
    with tempfile.TemporaryDirectory(prefix="kreview-batch-") as tmp:
        yield config.model_copy(update={"runs_dir": Path(tmp)})


def pack_run(run_dir: Path) -> bytes:
    """The run directory as a gzip'd tar (its review.json, draft, checkpoint and artifacts)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(run_dir, arcname=run_dir.name)
    data = buf.getvalue()
    if len(data) > MAX_ARCHIVE_BYTES:
        raise BatchError(f"run {run_dir.name} packs to {len(data) >> 20} MiB, over the "
                            f"{MAX_ARCHIVE_BYTES >> 20} MiB a batch sends back per review")
    return data


def unpack_run(data: bytes, runs_dir: Path) -> Path:
    """Put a packed run into the driver's run store; its review.json then names where it lives."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        names = {m.name.split("/", 1)[0] for m in tar.getmembers()}
        if len(names) != 1:
            raise BatchError(f"a packed run holds {len(names)} top-level entries, not one run directory")
        tar.extractall(runs_dir, filter="data")
    run_dir = (runs_dir / names.pop()).resolve()
    f = run_dir / REVIEW_FILE
    data_json = json.loads(f.read_text())
    data_json["run_dir"] = str(run_dir)
    write_atomic(f, json.dumps(data_json, indent=2))
    return run_dir


def review_submission(path: str, config_json: str, ship: bool) -> dict[str, Any]:
    """One review on whichever node runs it. Raises on a reviewer failure (the executor retries once)."""
    from reviewer.api import start_review

    t0 = time.monotonic()
    root = Path(path)
    if not root.is_dir():
        raise BatchError(f"{path} is not a directory on node {node_name()}: a batch's submissions must "
                            f"be at the same path on every node (a shared filesystem or file mounts)")
    config = ReviewConfig.model_validate_json(config_json)
    with runs_dir_for(config, ship) as cfg:
        review = start_review(root, cfg)
        archive = pack_run(Path(review.run_dir)) if ship else None
    return {"review": review.model_dump_json(), "archive": archive, "node": node_name(),
            "seconds": round(time.monotonic() - t0, 2), "version": __version__}
