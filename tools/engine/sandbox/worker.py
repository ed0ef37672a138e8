"""Parent side of a sandbox child: start it, send it requests, survive anything it does.

A worker is one child process that stays up across requests (importing torch takes ~2 s, so a fresh
process per case would dominate a review). Requests and answers are JSON lines on two private
pipes, and a third carries the child's alarms out of band (tools/engine/harness/alarm.py); tensors
travel as files whose paths the parent chooses. A timeout, a signal, an ``os._exit``
or garbage on the pipe ends in a typed ``ChildCrash``, never in an exception or a hang of the parent.
"""

from __future__ import annotations

import ctypes
import itertools
import json
import logging
import os
import resource
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

import tools.engine.sandbox.bwrap as bwrap
import tools.engine.sandbox.entry as entry
from tools.engine.sandbox import bytecode, disk, safe_files
from tools.engine.sandbox.env import scrubbed_env
from tools.engine.sandbox.gpu import GpuAccess, child_env
from tools.engine.sandbox.libraries import library_paths, mismatches, origins
from tools.engine.sandbox.isolation import probe_paths, redact, require, secret_values
from reviewer.core.limits import SandboxLimits
from tools.engine.sandbox.measure import problems
from tools.engine.sandbox.own_modules import OWN_PACKAGES
from tools.engine.sandbox.memcg import MemoryCgroup
from tools.engine.sandbox.pids import PIDS_MAX, PidsCgroup, user_task_count
from tools.engine.sandbox.seccomp_filter import filter_fd

_log = logging.getLogger(__name__)
# the module the entry script hands over to (tools/engine/sandbox/entry.py, child.py ``boot``)
CHILD_MODULE = "tools.engine.sandbox.child"
_PACKAGE_ROOT = Path(__file__).resolve().parents[3]
_MAX_MESSAGE = 16 * 2**20
# Rationale: the child writes at most 32 short records (tools/engine/harness/alarm.py); anything past
# this is a submission writing to the alarm pipe itself, which is reported once, not read on
MAX_ALARM_BYTES = 256 * 2**10
_TAIL = 4000
# Rationale: a review restarts a role's child for a fresh process two or three times (the integrity probes,
# memcheck); each set is a request, reply and alarm pipe for one forked restart (tools/engine/sandbox/zygote.py)
FORK_SETS = 4
FORKS_ENV = "KREVIEW_CHILD_FORKS"
"""``off``: every restart starts a new sandbox (no forked restarts)."""
# child logs: trimmed to their last LOG_KEEP bytes before a call once they pass LOG_CAP
LOG_CAP = 64 * 2**20
LOG_KEEP = 1 * 2**20
# Rationale: the reviewer's own secret values, removed from all text a child sends back (answers,
# stdout/stderr tails): a backstop for machines where the child cannot be put in namespaces and so
# can read its ancestors' /proc/<pid>/environ (tools/engine/sandbox/isolation.py).
_SECRETS = secret_values()

# numbers every child this reviewer starts, so alarms name their child across workers and restarts
_SERIALS = itertools.count(1)

CrashKind = Literal["timeout", "signal", "exit", "protocol", "startup", "oom", "disk"]

_OOM_MARKERS = ("std::bad_alloc", "MemoryError", "can't allocate memory", "Cannot allocate memory",
                "out of memory")


class ChildCrash(BaseModel):
    """The child stopped answering: how, and what it printed last."""

    model_config = ConfigDict(extra="forbid")

    kind: CrashKind
    message: str
    exit_code: int | None = None
    signal: str | None = None
    stderr_tail: str = ""
    stdout_tail: str = ""


class CallResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answered: bool
    ok: bool = False
    result: dict[str, Any] = {}
    error: dict[str, Any] | None = None
    crash: ChildCrash | None = None
    duration_s: float = 0.0
    stdout_tail: str = ""
    stderr_tail: str = ""
    alarms: list[dict[str, Any]] = []
    """Alarm records the child wrote out of band (tools/engine/harness/alarm.py) since the previous
    call, read by the parent itself: the reply's contents cannot take them back."""
    child: str = ""
    """Which child answered (``role#n``): alarms with the same ``child`` came from this process."""

    def failure_text(self) -> str:
        if self.crash is not None:
            # a child that died before answering says why on stderr (a wrapper such as ncu or
            # compute-sanitizer refusing to start, a missing library): its last line is the reason
            last = [ln for ln in self.crash.stderr_tail.splitlines() if ln.strip()][-2:]
            if self.crash.kind == "startup" and last:
                return f"{self.crash.message} (stderr: {' | '.join(x.strip() for x in last)[-400:]})"
            return self.crash.message
        if self.error is not None:
            return f"{self.error.get('type')}: {self.error.get('message')}"
        return ""


def _alarm_record(line: bytes) -> dict[str, Any]:
    """One line of the alarm pipe as a record: event, arg, file, line, function (all checked), or an
    ``unreadable`` record for anything else (the child's alarm hook writes nothing else)."""
    try:
        raw = json.loads(line)
    except (ValueError, RecursionError):
        raw = None
    if isinstance(raw, dict) and isinstance(raw.get("event"), str) and isinstance(raw.get("file"), str) \
            and isinstance(raw.get("line"), int):
        return {"event": raw["event"][:100], "arg": str(raw.get("arg", ""))[:500], "file": raw["file"][:1000],
                "line": raw["line"], "function": str(raw.get("function", ""))[:200]}
    return {"event": "unreadable alarm record", "arg": redact(line[:200].decode("utf-8", "replace"), _SECRETS)}


def _venv_without_user_site() -> bool:
    """Whether the interpreter is a virtual environment's without system site-packages (Python then
    loads no user site-packages: ``site.venv``)."""
    cfg = Path(sys.prefix) / "pyvenv.cfg"
    if sys.prefix == sys.base_prefix or not cfg.is_file():
        return False
    for line in cfg.read_text(errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip().lower() == "include-system-site-packages":
            return value.strip().lower() != "true"
    return True


def _load_prctl() -> Any:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# Rationale: opened and looked up once, here, not in the forked child before exec: dlopen and dlsym take
# the dynamic loader's lock, which another thread of the parent may hold at the moment of the fork
_PRCTL = _load_prctl()
if _PRCTL is None:  # not Linux's libc: bubblewrap's --die-with-parent still ends a sandboxed child with us
    _log.warning("prctl not found in the C library: sandbox children will not get a parent-death signal")


def _set_pdeathsig() -> None:
    # Rationale: if the reviewer dies, its children must die too, not run on as orphans.
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _limit_child(limits: SandboxLimits, address_space: bool = True, cgroup: PidsCgroup | None = None,
                 nproc: int | None = None, memcg: MemoryCgroup | None = None) -> None:
    if cgroup is not None:
        cgroup.enter()
    if memcg is not None:
        memcg.enter()
    if nproc is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    # Rationale: a bounded number of open files (the default hard limit can be a million)
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    if address_space:
        mem = limits.memory_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Rationale: no POSIX message queue (they outlive their process in the sandbox's IPC namespace and
    # cannot be listed without a mount, so a forked restart could not see one left: tools/engine/sandbox/zygote.py)
    resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
    fsize = limits.file_size_mb * 2**20
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    # Rationale: a backstop for grandchildren that leave the process group (setsid) and so escape
    # the wall-clock kill; generous because one worker serves a whole review.
    cpu = int(max(600.0, limits.call_timeout_s * 20))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    _set_pdeathsig()


def _tail(fd: int | None, start: int) -> str:
    if fd is None:
        return ""
    try:
        end = os.fstat(fd).st_size
        begin = max(start, end - _TAIL)
        return redact(os.pread(fd, max(0, end - begin), begin).decode("utf-8", "replace"), _SECRETS)
    except OSError:
        return ""


def log_tail(fd: int, keep: int) -> bytes:
    """A child log's last ``keep`` bytes, after a line saying how much before them was cut."""
    size = os.fstat(fd).st_size
    if size <= keep:
        return os.pread(fd, size, 0)
    return f"[kreview: first {size - keep} bytes of this log cut]\n".encode() + os.pread(fd, keep, size - keep)


def _size(fd: int | None) -> int:
    try:
        return os.fstat(fd).st_size if fd is not None else 0
    except OSError:
        return 0


def _log_file() -> int:
    """An unnamed file for one of a child's output streams, opened for appending: the child writes to
    it through its stdout/stderr, the parent reads and trims it through the descriptor it holds.
    Rationale: it has no name anywhere, least of all in a folder the child can write, so the child
    cannot swap it for a link that makes the parent read, append to or truncate a host file."""
    # Rationale: a name like any program's temporary file; the child sees it in /proc/self/fd
    fd, name = tempfile.mkstemp()
    os.unlink(name)
    os.set_blocking(fd, True)
    import fcntl

    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return fd


class SandboxWorker:
    """One untrusted child process.

    ``preludes`` are module names (ours, trusted) whose ``install(config)`` runs in the child before
    any submission code is imported: backend setup such as ``TRITON_INTERPRET`` or the CUDA shim.
    ``wrapper`` is a command the child runs under (e.g. ``compute-sanitizer --tool memcheck``).
    ``writable``: where the child may write besides ``workdir`` (nothing else of the host is
    writable, and little is visible: tools/engine/sandbox/bwrap.py). ``gpu``: the GPU the child runs
    kernels on (its nodes, driver libraries and device selection: tools/engine/sandbox/gpu.py), or None.
    A GPU child has no RLIMIT_AS: CUDA reserves virtual address space for all host and device memory
    (UVM), so an address-space limit makes CUDA initialisation fail; the device bounds kernel memory.
    ``owned``: the (device, inode) of files in the writable folders that are the parent's (staged
    inputs, outputs already taken), left out of the disk budget (``limits.disk_mb``, all the rest
    of the writable folders together: tools/engine/sandbox/disk.py); shared by a session's workers.
    """

    def __init__(
        self,
        name: str,
        workdir: Path,
        limits: SandboxLimits,
        *,
        env_extra: dict[str, str] | None = None,
        preludes: list[str] | None = None,
        child_config: dict[str, Any] | None = None,
        python: str | None = None,
        wrapper: list[str] | None = None,
        writable: list[Path] | None = None,
        gpu: GpuAccess | None = None,
        owned: set[tuple[int, int]] | None = None,
        pid_target: int | None = None,
        alarm_sink: list[dict[str, Any]] | None = None,
    ) -> None:
        self.name = name
        self.pid_target = pid_target
        """The pid the child's serving process gets (tools/engine/sandbox/pid_counter.py); None: the next
        free one (2 in its own pid namespace)."""
        self.owned = owned if owned is not None else set()
        self.workdir = Path(workdir)
        self.limits = limits
        self.env_extra = dict(env_extra or {})
        self.preludes = list(preludes or [])
        self.child_config = dict(child_config or {})
        self.python = python or sys.executable
        self.wrapper = list(wrapper or [])
        self.gpu = gpu
        self.address_space_limit = gpu is None
        self.writable = [self.workdir, *(Path(p) for p in writable or [])]
        self._cgroup: PidsCgroup | None = None
        self._memcg: MemoryCgroup | None = None
        self.isolation: dict[str, Any] = {}
        self.proc: subprocess.Popen[bytes] | None = None
        self._req_w: int | None = None
        self._resp_r: int | None = None
        self._alarm_r: int | None = None
        self._alarm_buf = b""
        self._alarm_bytes = 0
        self._alarm_closed = False
        self._serial = 0
        self.alarm_sink = alarm_sink if alarm_sink is not None else []
        """Every alarm record of this worker's children, in order (a session shares one list among its workers)."""
        self._buf = b""
        self.starts = 0
        self.requests = 0
        """Requests sent to the current child since its launch (0: it has run nothing asked of it)."""
        self.ready_info: dict[str, Any] = {}
        self._pending_ready = False
        self._launch_logs = (0, 0)
        self._launched_at = 0.0
        self._launch_sandboxed = False
        # the child's stdout/stderr (unnamed files, see _log_file) and its private /etc files, both
        # out of the child's reach; kept across restarts, released by ``remove``
        self._out: int | None = None
        self._err: int | None = None
        self._etc: Path | None = None
        # a zygote child's control pipe and the parent's ends of its unused fork sets (``fork``)
        self._control_w: int | None = None
        self._fork_sets: list[tuple[int, int, int, int]] = []
        self.forked = 0
        """Children of this worker that were forks of its sandbox's first process, not new sandboxes."""

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_size(self, stream: Literal["stdout", "stderr"]) -> int:
        return _size(self._out if stream == "stdout" else self._err)

    def log_bytes(self, stream: Literal["stdout", "stderr"], keep: int) -> bytes:
        """The last ``keep`` bytes of the child's ``stream`` (all runs of this worker), read through
        the parent's own descriptor."""
        fd = self._out if stream == "stdout" else self._err
        return b"" if fd is None else log_tail(fd, keep)

    def start(self) -> CallResult:
        """Start the child and wait for its ready message (preludes and torch imported)."""
        self.launch()
        return self.wait_ready()

    @property
    def launched(self) -> bool:
        """Started and not yet waited for (``launch`` without ``wait_ready``)."""
        return self._pending_ready

    @property
    def pristine(self) -> bool:
        """Launched (or started) and sent no request since: no code of the task or the submission has
        run in it, so it is as fresh as a child started now."""
        return (self._pending_ready or self.alive) and self.requests == 0

    def launch(self) -> None:
        """Start the child without waiting for it: its interpreter, preludes and torch import run
        while the parent goes on (another child's start, the parent's own work). The child is the
        same process under the same sandbox as ``start``'s; nothing of the submission runs before a
        request asks for it. ``wait_ready`` (or the next ``call``) takes its ready message and
        checks its isolation before any request is sent."""
        self.close()
        iso = require()  # SandboxUnavailable (exit 2) rather than submission code without a sandbox
        # the child cannot write our packages' bytecode (read-only there): the parent does, once
        bytecode.ensure(_PACKAGE_ROOT, OWN_PACKAGES)
        self.workdir.mkdir(parents=True, exist_ok=True)
        env = scrubbed_env(self.workdir, threads=self.limits.threads, extra=self.env_extra)
        if self.gpu is not None:
            env.update(child_env(self.workdir, self.gpu))
        # Rationale: Python reads no variable of its own in the child (what ``-I`` did: no PYTHONPATH,
        # PYTHONSTARTUP, PYTHONHASHSEED, ...), and none is there for a kernel to read
        env = {k: v for k, v in env.items() if not k.startswith("PYTHON")}
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        # Rationale: the alarm pipe (tools/engine/harness/alarm.py), a third channel the request loop
        # never touches; its read end is the parent's only
        alarm_r, alarm_w = os.pipe()
        os.set_blocking(alarm_r, False)
        config = {
            "name": self.name,
            "preludes": self.preludes,
            "threads": self.limits.threads,
            "package_root": str(_PACKAGE_ROOT),
            "library_paths": library_paths(),
            "entry": CHILD_MODULE,
            "response_fd": resp_w,
            "alarm_fd": alarm_w,
            **self.child_config,
        }
        prefix: list[str] = []
        fds = [resp_w, alarm_w]
        cgroup: PidsCgroup | None = None
        memcg: MemoryCgroup | None = None
        nproc: int | None = None
        # the parent's own folder (never in the child's writable folders, where a link left by an earlier
        # child would make the parent write over a host file): the child's /etc/passwd and /etc/group and
        # the entry script (tools/engine/sandbox/entry.py)
        if self._etc is None:
            self._etc = Path(tempfile.mkdtemp())
        script = entry.write(self._etc)
        flags = ["-I"]
        if iso.sandboxed:
            etc = bwrap.passwd_file(self._etc)
            fds.append(filter_fd())
            home = self.workdir / "home"
            # Rationale: an ordinary command line (no -I); what -I held is held by the clean environment
            # above, the entry script's folder holding nothing else (it leaves sys.path first thing),
            # and no user site-packages: a virtual environment without system packages has none, any
            # other interpreter is started with -s
            flags = [] if self.python == sys.executable and _venv_without_user_site() else ["-s"]
            # a wrapper (compute-sanitizer) stays under bubblewrap's init: it is the namespace's first process
            init = not self.wrapper
            prefix = bwrap.command(writable=self.writable, chdir=self.workdir, etc_dir=etc, seccomp_fd=fds[-1],
                                   gpu=self.gpu, wrapper=self.wrapper, home=home, script=(script, entry.SCRIPT),
                                   init=init)
            script = Path(entry.SCRIPT)
            config.update(init=init, pid_target=self.pid_target)
            if init and self.gpu is None and os.environ.get(FORKS_ENV, "").lower() != "off":
                # Rationale: CPU children only: a process that has loaded a GPU driver is not forked
                control_r, sets = self._open_fork_sets()
                config.update(control_fd=control_r, forks=[list(child_side) for child_side in sets])
                fds += [control_r, *(fd for child_side in sets for fd in child_side)]
            env.update(HOME=bwrap.HOME, XDG_CACHE_HOME=f"{bwrap.HOME}/.cache")
            config["measure"] = probe_paths(self.workdir)
            # one memory budget for the whole sandbox (its processes and its /tmp, /dev/shm files).
            # Rationale: a CUDA child has no RLIMIT_AS (UVM reserves address space for all memory) and
            # stages inputs in host memory, so its budget is a wider backstop than a CPU child's
            budget = self.budget_mb * 2**20
            cgroup = PidsCgroup.create(memory=budget)
            if cgroup is None or not cgroup.memory:
                memcg = MemoryCgroup.create(budget)
            if cgroup is None and os.geteuid() != 0:
                nproc = user_task_count() + PIDS_MAX
        cmd = [*prefix, *self.wrapper, self.python, *flags, str(script)]
        if self._out is None:
            self._out = _log_file()
        if self._err is None:
            self._err = _log_file()
        out_start, err_start = _size(self._out), _size(self._err)
        limits, address_space = self.limits, self.address_space_limit
        try:
            self.proc = subprocess.Popen(  # noqa: S603 - the command is ours; the code it loads is not
                cmd,
                pass_fds=tuple(fds),
                stdin=req_r,
                stdout=self._out,
                stderr=self._err,
                cwd=self.workdir,
                env=env,
                start_new_session=True,
                preexec_fn=lambda: _limit_child(limits, address_space, cgroup, nproc, memcg),  # noqa: PLW1509
            )
        except BaseException:
            for group in (cgroup, memcg):
                if group is not None:
                    group.kill_and_remove()
            os.close(alarm_r)
            raise
        finally:
            for fd in (req_r, *fds):
                os.close(fd)
        # the configuration, the first line on the request pipe (never in the command line); small, so the
        # pipe holds it until the child reads it
        view = memoryview((json.dumps(config) + "\n").encode())
        try:
            while view:
                view = view[os.write(req_w, view):]
        except OSError:
            pass  # the child is gone: its ready message never comes and wait_ready says why
        self._cgroup, self._memcg = cgroup, memcg
        self._req_w, self._resp_r, self._buf = req_w, resp_r, b""
        self._alarm_r, self._alarm_buf, self._alarm_bytes, self._alarm_closed = alarm_r, b"", 0, False
        self.starts += 1
        self._serial = next(_SERIALS)
        self.requests = 0
        self._pending_ready = True
        self._launch_logs = (out_start, err_start)
        self._launched_at = time.monotonic()
        self._launch_sandboxed = iso.sandboxed

    def _open_fork_sets(self) -> tuple[int, list[tuple[int, int, int]]]:
        """The control pipe and ``FORK_SETS`` sets of request, reply and alarm pipes for a zygote child:
        the parent keeps the write end of the control pipe and its own end of each set; returns the child's
        ends (closed here once the child is launched: they are in ``launch``'s ``fds``)."""
        control_r, self._control_w = os.pipe()
        child_sides = []
        for index in range(FORK_SETS):
            req_r, req_w = os.pipe()
            resp_r, resp_w = os.pipe()
            alarm_r, alarm_w = os.pipe()
            os.set_blocking(alarm_r, False)
            self._fork_sets.append((index, req_w, resp_r, alarm_r))
            child_sides.append((req_r, resp_w, alarm_w))
        return control_r, child_sides

    @property
    def can_fork(self) -> bool:
        """The current child is a zygote's fork and a fork set is left: a restart can be a fork."""
        if self._control_w is None or not self._fork_sets:
            return False
        return self._pending_ready or (self.alive and self.ready_info.get("forkable") is True)

    def fork(self) -> CallResult | None:
        """Put a fork of the sandbox's first process in place of the current child (tools/engine/sandbox/
        zygote.py): the first process kills every process of the sandbox, empties its /tmp and /dev/shm
        and forks a serving process onto the next fork set, which says it is ready as a started child
        does (isolation measured, libraries checked). None where no fork can be made (the caller starts
        a new sandbox); the start's result otherwise (a fork that does not come up stops the sandbox)."""
        if not self.can_fork:
            return None
        if self._pending_ready:  # the current child's own start is taken first: it says whether the sandbox is up
            first = self.wait_ready()
            if not (first.answered and first.ok) or not self.can_fork:
                return None
        index, req_w, resp_r, alarm_r = self._fork_sets.pop(0)
        old = (self._req_w, self._resp_r, self._alarm_r, self._alarm_buf, self._alarm_bytes, self._alarm_closed,
               self._serial)
        out_start, err_start = _size(self._out), _size(self._err)
        try:
            assert self._control_w is not None
            os.write(self._control_w, (json.dumps({"set": index}) + "\n").encode())
        except OSError:
            for fd in (req_w, resp_r, alarm_r):
                os.close(fd)
            return None
        self._req_w, self._resp_r, self._buf = req_w, resp_r, b""
        self._alarm_r, self._alarm_buf, self._alarm_bytes, self._alarm_closed = alarm_r, b"", 0, False
        self.starts += 1
        self._serial = next(_SERIALS)
        self.requests = 0
        self.pid_target = None
        self._pending_ready = True
        self._launch_logs = (out_start, err_start)
        self._launched_at = time.monotonic()
        self._launch_sandboxed = True
        started = self.wait_ready()
        # the previous child is gone by now (killed before the fork, or with the sandbox): what it wrote to
        # its alarm pipe until then is its own, under its own name
        new = (self._req_w, self._resp_r, self._alarm_r, self._alarm_buf, self._alarm_bytes, self._alarm_closed,
               self._serial)
        (self._req_w, self._resp_r, self._alarm_r, self._alarm_buf, self._alarm_bytes, self._alarm_closed,
         self._serial) = old
        self._drain_alarms("end")
        for fd in old[:3]:
            if fd is not None:
                os.close(fd)
        (self._req_w, self._resp_r, self._alarm_r, self._alarm_buf, self._alarm_bytes, self._alarm_closed,
         self._serial) = new
        if not (started.answered and started.ok):
            self.close()
        else:
            self.forked += 1
        return started

    def wait_ready(self) -> CallResult:
        """Wait for the ready message of the child ``launch`` started (startup timeout counted from
        the launch) and check the isolation it measured; a child that falls short is killed."""
        if not self._pending_ready:
            return self.start()
        self._pending_ready = False
        sandboxed = self._launch_sandboxed
        out_start, err_start = self._launch_logs
        t0 = self._launched_at
        # Rationale: the startup timeout runs from when the parent starts waiting, as it did before
        # launches were early: time the parent spent elsewhere is never charged to the child.
        waited = time.monotonic()
        msg, crash = self._read_message(self.limits.startup_timeout_s, out_start, err_start)
        dt = time.monotonic() - t0
        _log.debug("child %s: started in %.3f s (waited %.3f s)", self.name, dt, time.monotonic() - waited)
        if crash is not None:
            crash = crash.model_copy(update={"kind": "startup" if crash.kind != "timeout" else "timeout",
                                             "message": "sandbox child failed to start: " + crash.message})
            return CallResult(answered=False, crash=crash, duration_s=dt,
                              stdout_tail=crash.stdout_tail, stderr_tail=crash.stderr_tail)
        assert msg is not None
        self.ready_info = msg.get("result", {})
        measured = self.ready_info.get("isolation") if isinstance(self.ready_info, dict) else None
        if sandboxed and msg.get("ok"):
            # Rationale: the promise is checked in every child, not only in the probe: a child whose
            # measurement falls short is stopped before it is sent any request.
            bad = problems(measured) if isinstance(measured, dict) else ["no measurement"]
            if bad:
                self._kill()
                crash = ChildCrash(kind="startup", message="sandbox child failed to start: the sandbox did not hold: "
                                   + "; ".join(bad))
                return CallResult(answered=False, crash=crash, duration_s=dt)
            self.isolation = measured
        if msg.get("ok") and isinstance(self.ready_info, dict):
            # Rationale: the review records the reviewer's library versions; a child that would run
            # other files of them is stopped (an environment problem, never a kernel failure).
            wrong = mismatches(origins(), self.ready_info.get("libraries") or {})
            if wrong:
                self._kill()
                crash = ChildCrash(kind="startup", message="sandbox child failed to start: it would import other "
                                   "library files than the reviewer's: " + "; ".join(wrong))
                return CallResult(answered=False, crash=crash, duration_s=dt)
        return CallResult(answered=True, ok=bool(msg.get("ok")), result=self.ready_info,
                          error=msg.get("error"), duration_s=dt)

    def interrupt(self) -> None:
        """End the child's processes from another thread, which may be waiting on its answer (that call then
        ends as a crash): only a signal to its process group; its pipes and state are left to ``close``, made
        by the thread that uses the worker (tools/engine/background.py)."""
        proc = self.proc
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def close(self) -> None:
        if self.proc is not None:
            self._kill()
        self._drain_alarms("end")
        for fd in (self._req_w, self._resp_r, self._alarm_r):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._req_w = self._resp_r = self._alarm_r = None
        for fd in (self._control_w, *(fd for _, *fds in self._fork_sets for fd in fds)):
            if fd is not None:
                os.close(fd)
        self._control_w, self._fork_sets = None, []
        self.proc = None
        self._pending_ready = False

    def shutdown(self, timeout: float) -> int | None:
        """End the child by closing its request pipe (it exits 0), so a wrapper can write its final
        report; killed after ``timeout``. Returns the exit code, None if it had to be killed."""
        code: int | None = None
        if self._req_w is not None:
            try:
                os.close(self._req_w)
            except OSError:
                pass
            self._req_w = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                code = None
        self.close()
        return code

    def release(self) -> None:
        """Stop the child and let go of its logs and private /etc files (the worker's end)."""
        self.close()
        for fd in (self._out, self._err):
            if fd is not None:
                os.close(fd)
        self._out = self._err = None
        if self._etc is not None:
            shutil.rmtree(self._etc, ignore_errors=True)
            self._etc = None

    def remove(self) -> None:
        self.release()
        safe_files.remove_tree(self.workdir)

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __enter__(self) -> SandboxWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _kill(self) -> None:
        proc = self.proc
        cgroup, self._cgroup = self._cgroup, None
        memcg, self._memcg = self._memcg, None
        for group in (cgroup, memcg):
            if group is not None:
                group.kill_and_remove()
        if proc is None:
            return
        self.interrupt()  # its process group
        try:
            proc.kill()
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    # -- requests ----------------------------------------------------------------------------
    def call(self, op: str, payload: dict[str, Any] | None = None, timeout: float | None = None) -> CallResult:
        """Send one request and wait for its answer, or for the child's death, or the timeout; with the
        alarms the child raised meanwhile (read after the answer: the child writes them first)."""
        res = self._call(op, payload, timeout)
        alarms = self._drain_alarms(op, answered=res.answered)
        return res.model_copy(update={"alarms": alarms, "child": self.child_id})

    def _call(self, op: str, payload: dict[str, Any] | None = None, timeout: float | None = None) -> CallResult:
        if self._pending_ready or not self.alive:
            started = self.wait_ready() if self._pending_ready else self.start()
            if not started.answered or not started.ok:
                return started
        assert self._req_w is not None
        # Rationale: unpredictable ids, so code in the child cannot cheaply forge the next answer.
        rid = secrets.randbits(62) or 1
        self.requests += 1
        line = (json.dumps({"id": rid, "op": op, "payload": payload or {}}) + "\n").encode()
        self._trim_logs()
        out_start, err_start = _size(self._out), _size(self._err)
        oom_before = self._budget_oom_kills()
        t0 = time.monotonic()
        try:
            view = memoryview(line)
            while view:
                n = os.write(self._req_w, view)
                view = view[n:]
        except OSError:
            crash = self._crash_after_eof(out_start, err_start)
            return CallResult(answered=False, crash=crash, duration_s=time.monotonic() - t0,
                              stdout_tail=crash.stdout_tail, stderr_tail=crash.stderr_tail)
        msg, crash = self._read_message(timeout or self.limits.call_timeout_s, out_start, err_start, rid)
        dt = time.monotonic() - t0
        if _log.isEnabledFor(logging.DEBUG):  # where a review's time goes, per request (benchmarks/profile_review.py)
            case = (payload or {}).get("case")
            _log.debug("child %s: %s in %.3f s%s %s", self.name, op, dt, "" if crash is None else f" ({crash.kind})",
                       case.get("label", "") if isinstance(case, dict) else "")
        out_tail = _tail(self._out, out_start)
        err_tail = _tail(self._err, err_start)
        if crash is not None:
            return CallResult(answered=False, crash=crash, duration_s=dt,
                              stdout_tail=crash.stdout_tail, stderr_tail=crash.stderr_tail)
        assert msg is not None
        if (over := self._disk_over()) is not None:
            return CallResult(answered=False, crash=self._disk_crash(over, out_tail, err_tail), duration_s=dt,
                              stdout_tail=out_tail, stderr_tail=err_tail)
        if self._budget_oom_kills() > oom_before:
            # Rationale: a process of the sandbox was killed for its memory budget during this call (a
            # forked helper, say) even though the child answered: the breach is the verdict, and the
            # child, short of a process, is not trusted with the next request
            self._kill()
            crash = ChildCrash(kind="oom", message=f"the sandbox's memory budget of {self.budget_mb} MiB "
                               "(all its processes and its /tmp and /dev/shm files together) was exceeded during "
                               "the call; a process was killed and the child stopped",
                               stdout_tail=out_tail, stderr_tail=err_tail)
            return CallResult(answered=False, crash=crash, duration_s=dt, stdout_tail=out_tail, stderr_tail=err_tail)
        return CallResult(answered=True, ok=bool(msg.get("ok")), result=msg.get("result") or {},
                          error=msg.get("error"), duration_s=dt, stdout_tail=out_tail, stderr_tail=err_tail)

    @property
    def child_id(self) -> str:
        """The current child's name (``role#n``, n counting every child this reviewer started)."""
        return f"{self.name}#{self._serial}"

    def _drain_alarms(self, request: str, *, answered: bool = False) -> list[dict[str, Any]]:
        """What the child wrote to the alarm pipe since the last drain: read without blocking, at most
        ``MAX_ALARM_BYTES`` per child, each line a record (tools/engine/harness/alarm.py) tagged with the
        child and the request it came during. The pipe closed by a child that is alive and answered is
        itself a record: only the child's own code can have closed its end."""
        fd = self._alarm_r
        if fd is None:
            return []
        new: list[dict[str, Any]] = []
        tag = {"role": self.name, "child": self.child_id, "request": request}
        while True:
            if self._alarm_bytes >= MAX_ALARM_BYTES:
                if self._alarm_bytes < MAX_ALARM_BYTES + 1:
                    self._alarm_bytes += 1  # reported once
                    new.append({"event": "alarm channel flooded", "arg": f"more than {MAX_ALARM_BYTES} bytes", **tag})
                break
            try:
                chunk = os.read(fd, 1 << 16)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            if not chunk:
                if answered and not self._alarm_closed and self.alive:
                    new.append({"event": "alarm channel closed", "arg": "the child closed its end", **tag})
                self._alarm_closed = True
                break
            self._alarm_bytes += len(chunk)
            self._alarm_buf += chunk
        *lines, self._alarm_buf = self._alarm_buf.split(b"\n")
        for line in lines:
            new.append({**_alarm_record(line), **tag})
        self.alarm_sink.extend(new)
        return new

    def _trim_logs(self) -> None:
        """Keep the child's stdout/stderr logs bounded across calls: a submission that floods them
        (each call may write up to RLIMIT_FSIZE) must not fill the reviewer's disk over a review.
        Between calls only the last part is kept; the child appends (O_APPEND), so it goes on
        writing at the new end. Only the parent's descriptors are used: no path the child could
        have replaced is opened, so no host file can be truncated here."""
        for fd in (self._out, self._err):
            if fd is None or _size(fd) <= LOG_CAP:
                continue
            try:
                kept = log_tail(fd, LOG_KEEP)
                os.ftruncate(fd, 0)
                view = memoryview(kept)
                while view:
                    view = view[os.write(fd, view):]
            except OSError:
                pass

    def _read_message(
        self, timeout: float, out_start: int, err_start: int, want_id: int | None = 0
    ) -> tuple[dict[str, Any] | None, ChildCrash | None]:
        assert self._resp_r is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._kill()
                return None, ChildCrash(
                    kind="timeout",
                    message=f"no answer within {timeout:g}s; the child was killed",
                    stdout_tail=_tail(self._out, out_start),
                    stderr_tail=_tail(self._err, err_start),
                )
            ready, _, _ = select.select([self._resp_r], [], [], min(remaining, 1.0))
            if not ready:
                if (over := self._disk_over()) is not None:
                    return None, self._disk_crash(over, _tail(self._out, out_start), _tail(self._err, err_start))
                continue
            chunk = os.read(self._resp_r, 1 << 16)
            if not chunk:
                return None, self._crash_after_eof(out_start, err_start)
            self._buf += chunk
            if len(self._buf) > _MAX_MESSAGE:
                self._kill()
                return None, self._protocol_crash("answer larger than 16 MiB", out_start, err_start)
        line, _, self._buf = self._buf.partition(b"\n")
        if _SECRETS:
            line = redact(line.decode("utf-8", "replace"), _SECRETS).encode()
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: "[" nested past the decoder's depth
            self._kill()
            return None, self._protocol_crash(f"answer is not JSON: {line[:200]!r}", out_start, err_start)
        if not isinstance(msg, dict) or (want_id is not None and msg.get("id") != want_id):
            self._kill()
            return None, self._protocol_crash(f"unexpected answer: {str(msg)[:200]}", out_start, err_start)
        return msg, None

    def _disk_over(self) -> disk.DiskUse | None:
        """The writable folders' use when it is over the disk budget (None while within it)."""
        use = disk.usage(self.writable, skip=self.owned)
        return use if use.truncated or use.bytes > self.limits.disk_mb * 2**20 else None

    def _disk_crash(self, use: disk.DiskUse, out_tail: str, err_tail: str) -> ChildCrash:
        # Rationale: the breach is the verdict, and the child is not trusted with the next request
        self._kill()
        what = (f"more than {disk.MAX_ENTRIES:,} files and folders" if use.truncated
                else f"{use.bytes / 2**20:.0f} MiB")
        return ChildCrash(kind="disk", message=f"the sandbox's disk budget of {self.limits.disk_mb} MiB (every file "
                          f"its processes keep in their folders on the reviewer's disk) was exceeded: {what}; the "
                          "child was stopped", stdout_tail=out_tail, stderr_tail=err_tail)

    @property
    def budget_mb(self) -> int:
        """The memory budget of the whole sandbox (where a memory cgroup is available)."""
        return self.limits.memory_mb * (1 if self.address_space_limit else 4)

    def _budget_oom_kills(self) -> int:
        n = 0
        for group in (self._cgroup, self._memcg):
            if group is not None:
                n += group.oom_kills()
        return n

    def _protocol_crash(self, why: str, out_start: int, err_start: int) -> ChildCrash:
        return ChildCrash(kind="protocol", message=f"protocol violation: {why}",
                          stdout_tail=_tail(self._out, out_start),
                          stderr_tail=_tail(self._err, err_start))

    def _crash_after_eof(self, out_start: int, err_start: int) -> ChildCrash:
        proc = self.proc
        code: int | None = None
        if proc is not None:
            try:
                code = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._kill()
                code = proc.returncode
        # counted before the cgroups go with the kill below
        budget_oom = self._budget_oom_kills()
        # the child may have left grandchildren behind in its session
        self._kill()
        err = _tail(self._err, err_start)
        out = _tail(self._out, out_start)
        if budget_oom:
            return ChildCrash(kind="oom", message=f"the sandbox's memory budget of {self.budget_mb} MiB "
                              "(all its processes and its /tmp and /dev/shm files together) was exceeded; its "
                              "processes were killed", exit_code=code,
                              signal=signal.Signals(-code).name if code is not None and code < 0 else None,
                              stderr_tail=err, stdout_tail=out)
        oom = any(m in err for m in _OOM_MARKERS)
        if code is not None and code < 0:
            sig = signal.Signals(-code).name
            kind: CrashKind = "oom" if oom else "signal"
            message = f"child killed by {sig}" + (" (out of memory)" if oom else "")
            return ChildCrash(kind=kind, message=message, exit_code=code, signal=sig,
                              stderr_tail=err, stdout_tail=out)
        return ChildCrash(kind="oom" if oom else "exit",
                          message=f"child exited with status {code} without answering",
                          exit_code=code, stderr_tail=err, stdout_tail=out)
