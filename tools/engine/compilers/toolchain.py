"""Where the NVIDIA compiler tools are, and running them on untrusted input without trusting it.

ptxas, cuobjdump and nvdisasm come from Triton's wheel (``triton/backends/nvidia/bin``) when
installed, else from the CUDA toolkit beside ``nvcc``, else from the nvidia-cuda-* pip wheels; nvcc
comes from PATH, ``CUDA_HOME`` or ``/usr/local/cuda``. Each tool runs in its own session with a
scrubbed environment, address-space and CPU limits and a wall-clock timeout: the PTX or CUDA C it
reads was written by the submission.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import resource
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tools.engine.background import stop_event
from tools.engine.sandbox.env import scrubbed_env

_MEMORY_BYTES = 8 * 2**30
_OUTPUT_LIMIT = 256 * 2**20


@dataclass(frozen=True)
class ToolRun:
    cmd: list[str]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def command(self) -> str:
        import shlex

        return " ".join(shlex.quote(c) for c in self.cmd)


def _triton_bin() -> Path | None:
    spec = importlib.util.find_spec("triton")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "backends" / "nvidia" / "bin"
    return folder if folder.is_dir() else None


def _wheel_bin(package: str) -> Path | None:
    """``nvidia/cuda_<x>/bin`` of an nvidia-cuda-* wheel, if one is installed."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        folder = Path(root) / package / "bin"
        if folder.is_dir():
            return folder
    return None


def _toolkit_bins() -> list[Path]:
    out: list[Path] = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        out.append(Path(nvcc).resolve().parent)
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            out.append(Path(os.environ[var]) / "bin")
    out.append(Path("/usr/local/cuda/bin"))
    return out


def _executable(folder: Path | None, name: str) -> str | None:
    if folder is None:
        return None
    p = folder / name
    return str(p) if p.is_file() and os.access(p, os.X_OK) else None


@functools.cache
def find(name: str) -> str | None:
    """Absolute path of ``ptxas``, ``ptxas-blackwell``, ``cuobjdump``, ``nvdisasm`` or ``nvcc``."""
    if name == "nvcc":
        for folder in _toolkit_bins():
            if (hit := _executable(folder, "nvcc")) is not None:
                return hit
        return shutil.which("nvcc")
    if name != "nvcc" and (hit := _executable(_triton_bin(), name)) is not None:
        return hit
    wheel = {"cuobjdump": "cuda_cuobjdump", "nvdisasm": "cuda_nvdisasm", "ptxas": "cuda_nvcc"}.get(name)
    if wheel and (hit := _executable(_wheel_bin(wheel), name)) is not None:
        return hit
    for folder in _toolkit_bins():
        if (hit := _executable(folder, name)) is not None:
            return hit
    return shutil.which(name)


def ptxas_for(arch: str) -> str | None:
    """Triton's own choice: its ``ptxas-blackwell`` for sm_100 and newer, ``ptxas`` otherwise."""
    import re

    m = re.search(r"(\d+)", arch)
    if m and int(m.group(1)) >= 100:
        return find("ptxas-blackwell") or find("ptxas")
    return find("ptxas")


@functools.cache
def version(path: str) -> str:
    """The last line of ``<tool> --version`` ("Cuda compilation tools, release 12.9, V12.9.86")."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    release = [ln for ln in lines if "release" in ln]
    return (release or lines or ["unknown"])[-1].strip()


def _limit(cpu_seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_BYTES, _MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (_OUTPUT_LIMIT, _OUTPUT_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))


def _in_sandbox(cmd: list[str], cwd: Path, etc: Path) -> tuple[list[str], tuple[int, ...]]:
    """``cmd`` under the submission sandbox's bubblewrap command line and seccomp filter, seeing only
    ``cwd`` (writable), the toolchains and the Python environment: a compiler reads the submission's
    source, and an ``#include "/home/you/.ssh/id_rsa"`` must find nothing to quote into its error
    log. Where no sandbox can be set up and the user allowed running without one, the plain command."""
    from tools.engine.sandbox import bwrap
    from tools.engine.sandbox.gpu import toolkit_dirs
    from tools.engine.sandbox.isolation import require
    from tools.engine.sandbox.seccomp_filter import filter_fd

    if not require().sandboxed:
        return cmd, ()
    fd = filter_fd()
    prefix = bwrap.command(writable=[cwd], chdir=cwd, etc_dir=bwrap.passwd_file(etc), seccomp_fd=fd, gpu=None,
                           wrapper=cmd[:1], readonly=[Path(d) for d in toolkit_dirs()])
    return [*prefix, *cmd], (fd,)


def run_tool(cmd: list[str], *, cwd: Path, timeout: float, extra_env: dict[str, str] | None = None) -> ToolRun:
    """Run a compiler tool in the sandbox with limits; never raises for the tool's failure or a timeout."""
    import tempfile

    # work started in a thread (tools/engine/background.py) that the review stopped: no tool starts, and the
    # one it waits on ends (``_wait``)
    stop = stop_event()
    if stop is not None and stop.is_set():
        return ToolRun(cmd=cmd, returncode=None, stdout="", stderr="not started: the review ended", seconds=0.0)
    cwd.mkdir(parents=True, exist_ok=True)
    env = scrubbed_env(cwd / ".toolenv", threads=1, extra=extra_env)
    cpu = int(max(timeout * 2, 30))
    t0 = time.monotonic()
    etc = Path(tempfile.mkdtemp(prefix="kreview-tool-etc-"))  # the parent's own: bound read-only
    fds: tuple[int, ...] = ()
    try:
        full, fds = _in_sandbox(cmd, cwd, etc)
        proc = subprocess.Popen(full, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True,
                                # only setrlimit calls in the forked child: no lock another thread may hold
                                pass_fds=fds, preexec_fn=lambda: _limit(cpu))  # noqa: PLW1509
    except OSError as exc:
        shutil.rmtree(etc, ignore_errors=True)
        return ToolRun(cmd=cmd, returncode=None, stdout="", stderr=f"could not start: {exc}", seconds=0.0)
    finally:
        for fd in fds:
            os.close(fd)
    try:
        return _wait(proc, cmd, timeout, t0, stop)
    finally:
        shutil.rmtree(etc, ignore_errors=True)


def _wait(proc: subprocess.Popen[str], cmd: list[str], timeout: float, t0: float,
          stop: threading.Event | None = None) -> ToolRun:
    deadline = t0 + timeout
    while True:
        # with a stop event, the wait wakes every 0.2 s to look at it (communicate keeps what it read)
        left = max(0.0, deadline - time.monotonic())
        try:
            out, err = proc.communicate(timeout=left if stop is None else min(0.2, left))
            return ToolRun(cmd=cmd, returncode=proc.returncode, stdout=out, stderr=err,
                           seconds=time.monotonic() - t0)
        except subprocess.TimeoutExpired:
            stopped = stop is not None and stop.is_set()
            if not stopped and time.monotonic() < deadline:
                continue
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        out, err = proc.communicate()
        return ToolRun(cmd=cmd, returncode=None, stdout=out, stderr=err + ("\nstopped: the review ended" if stopped
                                                                           else ""),
                       seconds=time.monotonic() - t0, timed_out=True)
