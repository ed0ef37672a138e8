"""Cost of the submission sandbox: per child start and per review, before and after bubblewrap.

    python benchmarks/sandbox_start.py [--repeats 10]

Measures, as medians over --repeats:

- bare process start (``python -I -c pass``) with no isolation;
- the previous sandbox's prefix (util-linux ``unshare --pid --fork --mount-proc --kill-child --net``,
  plus ``--map-current-user`` when not root), which was the per-child isolation before bubblewrap;
- the bubblewrap command line of tools/engine/sandbox/bwrap.py with the seccomp filter;
- a full sandbox worker start (torch imported, isolation measured in the child) with bubblewrap and
  with ``--unsafe-no-sandbox`` (no isolation at all);
- the one-off isolation probe (once per reviewer process);
- inside the same bubblewrap command, a child's imports once and then a fork of that imported process
  running one torch operation: what a child forked from a pristine one would cost instead of a start.

Per review the sandbox adds the probe once plus the bwrap overhead per child (two children for most
reviews, more for sanitizer/benchmark side runs). Prints a table and writes JSON to stdout's last line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


# Rationale: what a child forked from a pristine, already imported one would cost (the design in
# docs/sandbox.md, "Where a review's time goes"): in the same bubblewrap and seccomp filter, the imports a
# child makes before its ready message once, then five forks, each running one torch operation and exiting
_FORK = """
import json, os, sys, time
sys.path.insert(0, ROOT)
t0 = time.perf_counter()
import torch, triton
import tools.engine.harness.ops, tools.engine.harness.instruments.harness_guard
torch.set_num_threads(1)
imports = time.perf_counter() - t0
forks = []
for _ in range(5):
    r, w = os.pipe()
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        torch.randn(64, 1000).softmax(-1)
        os.write(w, b"1")
        os._exit(0)
    os.close(w)
    os.read(r, 1)
    os.waitpid(pid, 0)
    os.close(r)
    forks.append(time.perf_counter() - t)
print(json.dumps({"imports_s": imports, "forks_s": forks}))
"""


def _median_start(cmd: list[str], repeats: int, pass_fds_factory=None) -> float:
    times = []
    for _ in range(repeats):
        fds = pass_fds_factory() if pass_fds_factory else ()
        t0 = time.perf_counter()
        subprocess.run(cmd(fds) if callable(cmd) else cmd, check=True, pass_fds=fds, capture_output=True)
        times.append(time.perf_counter() - t0)
        for fd in fds:
            os.close(fd)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--worker-repeats", type=int, default=3)
    args = ap.parse_args()
    from tools.engine.sandbox import bwrap, isolation
    from reviewer.core.limits import SandboxLimits
    from tools.engine.sandbox.seccomp_filter import filter_fd

    py = [sys.executable, "-I", "-c", "pass"]
    out: dict[str, float | None] = {}
    out["bare_python_s"] = _median_start(py, args.repeats)
    unshare = shutil.which("unshare")
    if unshare:
        base = [unshare, "--pid", "--fork", "--mount-proc", "--kill-child", "--net"]
        if os.geteuid() != 0:
            base.insert(1, "--map-current-user")
        try:
            out["old_unshare_python_s"] = _median_start([*base, *py], args.repeats)
        except subprocess.CalledProcessError:
            out["old_unshare_python_s"] = None
    tmp = Path(tempfile.mkdtemp(prefix="kreview-bench-"))
    try:
        own = tmp / "w"
        etc = bwrap.passwd_file(tmp / "etc")

        def bw(fds, argv=py):
            return [*bwrap.command(writable=[own], chdir=own, etc_dir=etc, seccomp_fd=fds[0], gpu=None), *argv]

        out["bwrap_seccomp_python_s"] = _median_start(bw, args.repeats, lambda: (filter_fd(),))
        fd = filter_fd()
        try:
            fork = subprocess.run(bw((fd,), [sys.executable, "-I", "-c", _FORK.replace("ROOT", repr(str(ROOT)))]),
                                  pass_fds=(fd,), capture_output=True, text=True, check=True)
        finally:
            os.close(fd)
        figures = json.loads(fork.stdout.strip().splitlines()[-1])
        out["imports_in_sandbox_s"] = figures["imports_s"]
        out["fork_of_imported_child_s"] = statistics.median(figures["forks_s"])
        t0 = time.perf_counter()
        isolation.isolation.cache_clear()
        iso = isolation.isolation()
        out["isolation_probe_s"] = time.perf_counter() - t0
        if not iso.sandboxed:
            print(f"no sandbox here: {iso.why}", file=sys.stderr)
            return 1
        from tools.engine.sandbox.worker import SandboxWorker

        def worker_start() -> float:
            times = []
            for i in range(args.worker_repeats):
                w = SandboxWorker(f"bench{i}", tmp / f"wk{i}", SandboxLimits())
                t0 = time.perf_counter()
                res = w.start()
                times.append(time.perf_counter() - t0)
                w.remove()
                assert res.answered and res.ok, res.failure_text()
            return statistics.median(times)

        out["worker_start_bwrap_s"] = worker_start()
        os.environ[isolation.UNSAFE_ENV] = "1"
        isolation.isolation.cache_clear()
        out["worker_start_unsandboxed_s"] = worker_start()
    finally:
        os.environ.pop(isolation.UNSAFE_ENV, None)
        shutil.rmtree(tmp, ignore_errors=True)
    for k, v in out.items():
        print(f"{k:32s} {'n/a' if v is None else f'{v * 1000:9.1f} ms'}")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
