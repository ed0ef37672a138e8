"""Where one review's time goes: every sandbox request and child start, slowest first.

    python benchmarks/profile_review.py DIR [kreview review options...]

Runs ``kreview review DIR --no-signoff`` in this process with the sandbox worker's debug log on (each
request: role, op, seconds, case label; each child start: seconds, and how long the parent waited),
then prints the 25 slowest lines and the totals per op. The review itself is unchanged.
"""

from __future__ import annotations

import collections
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.t0 = time.monotonic()
        self.lines: list[tuple[float, float, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        seconds = next((a for a in args if isinstance(a, float)), 0.0)
        self.lines.append((time.monotonic() - self.t0, seconds, record.getMessage()))


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    collect = _Collect()
    log = logging.getLogger("tools.engine.sandbox.worker")
    log.setLevel(logging.DEBUG)
    log.addHandler(collect)
    from reviewer.cli import app

    sys.argv = ["kreview", "review", sys.argv[1], "--no-signoff", *sys.argv[2:]]
    t0 = time.monotonic()
    try:
        app()
    except SystemExit:
        pass
    wall = time.monotonic() - t0
    print(f"\nreview wall time {wall:.1f} s; slowest requests (at s, seconds, what):", file=sys.stderr)
    for at, seconds, msg in sorted(collect.lines, key=lambda r: -r[1])[:25]:
        print(f"  {at:7.2f} {seconds:7.3f}  {msg}", file=sys.stderr)
    per_op: dict[str, float] = collections.Counter()
    for _, seconds, msg in collect.lines:
        per_op[" ".join(msg.split()[1:3]).rstrip(":")] += seconds
    print("per role and op (seconds):", file=sys.stderr)
    for op, seconds in sorted(per_op.items(), key=lambda r: -r[1]):
        print(f"  {seconds:7.2f}  {op}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
