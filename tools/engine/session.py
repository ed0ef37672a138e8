"""A review's sandbox session: one reference child and one submission child, launched together on first need.

Order of trust: the reference child writes a case's inputs and outputs; the parent loads the
outputs into memory and deletes the file *before* the submission child runs on those inputs, so no
reference answer is on disk while untrusted code runs. The parent compares.

Transfer folders: the reference child reads and writes ``xfer/`` only, every submission-side child
``xfer-submission/`` only (each sees nothing of the other's: tools/engine/sandbox/bwrap.py binds only a
child's own folders). The parent keeps its own copy of each case's inputs in ``parent/`` (bound into
no child) and gives the submission a fresh copy before every call, so nothing the parent reads back
as *inputs* was ever writable by submission code; what it reads from ``xfer-submission/`` is the
submission's own output, loaded with ``weights_only=True``.

Every folder a child can write is reached only through tools/engine/sandbox/safe_files.py (no
component followed as a link, a FIFO or device never opened, sizes bounded): a child may have
replaced any name there between two requests.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from reviewer.core.submission import SKIPPED_DIRS, Submission
from tools.engine.runsetup import DeviceInfo, RunSetup
import tools.engine.harness.virtual_gpu as virtual_gpu
from tools.engine.formats import format_of
from tools.engine.harness.case import Case
import tools.engine.sandbox.gpu as gpu
from tools.engine.sandbox import CallResult, SandboxLimits, SandboxWorker
import tools.engine.sandbox.safe_files as safe_files
import tools.engine.sandbox.disk as disk
import tools.engine.reference_store as reference_store
from tools.engine.code_version import code_version, library_versions
from tools.engine.sandbox.worker import LOG_KEEP

_COPY_LIMIT = 64 * 2**20
# the two children almost every review needs; started together (SandboxSession.prelaunch)
_PAIR = ("submission", "reference")


@dataclass
class ReferenceRun:
    case: Case
    call: CallResult
    inputs_path: Path | None = None
    outputs: Any = None
    meta: dict[str, Any] = field(default_factory=dict)
    parent_inputs: Path | None = None  # the parent's own copy, bound into no child

    @property
    def ok(self) -> bool:
        return self.call.answered and self.call.ok


@dataclass
class SubmissionRun:
    case: Case
    call: CallResult
    load: CallResult | None = None
    outputs: Any = None
    outputs_path: Path | None = None
    inputs_after: Any = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def loaded(self) -> bool:
        return self.load is None or (self.load.answered and self.load.ok)

    @property
    def ok(self) -> bool:
        return self.loaded and self.call.answered and self.call.ok


def _given(p: Path, leave_out: frozenset[Path]) -> bool:
    """Whether a child's copy of the submission folder holds ``p`` (a file or folder of that folder)."""
    if p.name in SKIPPED_DIRS or p in leave_out:
        return False
    # Rationale: ingest refuses these; never copy what a link points to (a secret, /dev/zero)
    return not (p.is_symlink() or not (p.is_file() or p.is_dir()) or (p.is_file() and p.stat().st_nlink > 1))


def _copy_tree(src: Path, dst: Path, *, leave_out: frozenset[Path] = frozenset()) -> None:
    """``src`` copied to ``dst`` as a child is given it; ``leave_out``: files of ``src`` not given."""
    total = 0

    def ignore(folder: str, names: list[str]) -> set[str]:
        nonlocal total
        skipped = set()
        for n in names:
            p = Path(folder) / n
            if not _given(p, leave_out):
                skipped.add(n)
            elif p.is_file():
                total += p.stat().st_size
                if total > _COPY_LIMIT:
                    skipped.add(n)
        return skipped

    # Rationale: a folder an earlier child of the same role wrote in is emptied first, never copied
    # into: a link it left there would be followed by the copy (rmtree removes links, not targets)
    if os.path.islink(dst):
        os.unlink(dst)
    elif dst.exists():
        safe_files.remove_tree(dst)
    shutil.copytree(src, dst, ignore=ignore, symlinks=False, copy_function=_copy_plain)


def _tree_digest(src: Path, *, leave_out: frozenset[Path] = frozenset()) -> dict[str, str] | None:
    """SHA-256 of each file ``_copy_tree`` gives a child, by relative path; None where the copy would
    be cut at its size limit (what the child sees then depends on the walk's order)."""
    out: dict[str, str] = {}
    total = 0
    for folder, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if _given(Path(folder) / d, leave_out))
        for name in sorted(filenames):
            p = Path(folder) / name
            if not _given(p, leave_out):
                continue
            data = p.read_bytes()
            total += len(data)
            if total > _COPY_LIMIT:
                return None
            out[p.relative_to(src).as_posix()] = hashlib.sha256(data).hexdigest()
    return out


def _copy_plain(src: str, dst: str) -> str:
    """A file's content and its permission bits, never setuid/setgid/sticky (the copy is run, not kept)."""
    shutil.copyfile(src, dst)
    os.chmod(dst, os.stat(src).st_mode & 0o777)
    return dst


# Rationale: the sandbox folders are named as any program's temporary folders (``tempfile``'s ``tmp...``):
# a child sees its folder's path (its working directory, its files' paths) and must not read in it that it
# is being reviewed (issue 28, item 3). Which folders are a reviewer's, and which reviewer's, is kept here,
# in the host's temporary folder, where no child can see or write: one empty file per folder, named
# ``<reviewer pid>-<folder name>``.
_REGISTRY = "kreview-roots"


def _registry() -> Path | None:
    """This user's registry folder (``kreview-roots-<uid>``, mode 0700), made on first use. None where that
    name is taken by anything but a folder of this user's that no one else can write: a link, another
    user's folder (a shared temporary folder on a machine several users review on), an open folder. Then
    sandbox folders are not registered and no stale one is removed, rather than acting on entries another
    user may have planted."""
    reg = Path(tempfile.gettempdir()) / f"{_REGISTRY}-{os.geteuid()}"
    try:
        reg.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    return reg if _own_folder(reg, private=True) else None


def _register_root(root: Path) -> Path | None:
    reg = _registry()
    if reg is None:
        return None
    entry = reg / f"{os.getpid()}-{root.name}"
    try:
        entry.touch()
    except OSError:
        return None
    return entry


def _remove_stale_roots() -> None:
    """Sandbox folders left by a reviewer that was killed outright (SIGKILL, OOM killer): copies of a
    submission, its reference and inputs have no business staying on the machine. Also the folders of
    older reviewers, named ``kreview-sandbox-<pid>-...``."""
    tmp = Path(tempfile.gettempdir())
    found: list[tuple[str, Path, Path | None]] = [(d.name.split("-")[2], d, None) for d in tmp.glob("kreview-sandbox-*-*")
                                                  if _own_folder(d)]
    reg = _registry()
    try:
        entries = list(reg.iterdir()) if reg is not None else []
    except OSError:
        entries = []
    for e in entries:
        pid, _, name = e.name.partition("-")
        # only a folder directly in the temporary folder, by the name tempfile gave it
        if name.startswith("tmp") and "/" not in name and name not in (".", "..") and _own_folder(tmp / name):
            found.append((pid, tmp / name, e))
    for pid, d, entry in found:
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            safe_files.remove_tree(d)
            if entry is not None:
                entry.unlink(missing_ok=True)
        except OSError:
            pass


def _own_folder(path: Path, *, private: bool = False) -> bool:
    """A folder (not a link) of this user's: the only kind a stale-folder sweep removes; ``private``: that
    no one else may write or read either (the registry)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not (private and st.st_mode & 0o077)


def _kept_log(ran: list[SandboxWorker], stream: Literal["stdout", "stderr"]) -> bytes:
    """The last ``LOG_KEEP`` bytes a role's children wrote to ``stream``, oldest child first, each cut part
    saying so; read through the workers' own descriptors (tools/engine/sandbox/worker.py)."""
    parts: list[bytes] = []
    left = LOG_KEEP
    for w in reversed(ran):
        size = w.log_size(stream)
        if size and left > 0:
            parts.insert(0, w.log_bytes(stream, left))
            left -= size
    return b"".join(parts)


def _jax_cache_env(folder: Path) -> dict[str, str]:
    """JAX's persistent compilation cache in ``folder``, for every compile (jax.config reads these
    variables at import: ``jax_compilation_cache_dir``, ``jax_persistent_cache_min_compile_time_secs``,
    ``jax_persistent_cache_min_entry_size_bytes``)."""
    return {"JAX_COMPILATION_CACHE_DIR": str(folder), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}


class SandboxSession:
    def __init__(self, submission: Submission, *, limits: SandboxLimits, device: DeviceInfo,
                 setup: RunSetup, workroot: Path | None = None, keep_logs_in: Path | None = None) -> None:
        self.submission = submission
        self.limits = limits
        self.device = device
        self.setup = setup
        self._registered: Path | None = None
        if workroot is None:
            _remove_stale_roots()
            # registered with the reviewer's pid: a folder whose reviewer died (SIGKILL) is removed by the next one
            self.root = Path(tempfile.mkdtemp())
            self._registered = _register_root(self.root)
        else:
            self.root = Path(workroot)
        self.keep_logs_in = keep_logs_in
        self.run_tag: str | None = None
        """What names this review's requests to the reference for the store (its master seed, set by the
        tool context); None: the store's answers of any review count as this one's (``prelaunch``)."""
        self.xfer = self.root / "xfer"  # the reference child's
        self.sub_xfer = self.root / "xfer-submission"  # every submission-side child's
        self.parent_dir = self.root / "parent"  # the parent's own copies; bound into no child
        for d in (self.xfer, self.sub_xfer, self.parent_dir):
            d.mkdir(parents=True, exist_ok=True)
        self._workers: dict[str, SandboxWorker] = {}
        # launched ahead for a role (``stand_by``), each put in place of a used child by a ``restart``;
        # and the children a restart retired, whose logs are kept with their role's at ``close``
        self._spares: dict[str, list[SandboxWorker]] = {}
        self._retired: list[tuple[str, SandboxWorker]] = []
        # the files in the children's folders that are the parent's (staged inputs, outputs taken):
        # out of every child's disk budget (tools/engine/sandbox/disk.py)
        self.owned: set[tuple[int, int]] = set()
        self._load_results: dict[str, CallResult] = {}
        self.alarms: list[dict[str, Any]] = []
        """Every alarm record any child of this session wrote out of band (tools/engine/harness/alarm.py),
        in order, whichever tool's request it came during: shared by all the session's workers."""
        self._ref_cache: dict[str, ReferenceRun] = {}
        # the reference's answers kept across reviews of this task (tools/engine/reference_store.py);
        # False until first asked for, None where there is none
        self._store: reference_store.ReferenceStore | None | bool = False
        self._counter = 0
        self.paired: tuple[str, ...] = _PAIR
        """The roles started together at first use; ``("reference",)`` where no submission runs (kreview audit)."""

    # -- workers -----------------------------------------------------------------------------
    def child_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"device": "cuda" if self.device.has_gpu else "cpu",
                                  "cuda_shim": "tools.engine.harness.cuda_shim" in self.setup.preludes}
        if virtual_gpu.PRELUDE in self.setup.preludes:
            config["virtual_gpu"] = self.virtual_gpu()
        return config

    def virtual_gpu(self) -> dict[str, Any]:
        """The GPU the virtual device answers as (tools/engine/harness/virtual_gpu.py), from the review target."""
        target = self.submission.target
        return virtual_gpu.spec_for(target.gpu, tuple(target.arch))

    def _new_worker(self, role: str, *, limits: SandboxLimits | None = None, wrapper: list[str] | None = None,
                    env_extra: dict[str, str] | None = None, copy: bool = True,
                    pid_target: int | None = None) -> SandboxWorker:
        workdir = self.root / role
        if copy:
            _copy_tree(self.submission.root_path, workdir / "src",
                       leave_out=self._not_for_reference() if role == "reference" else frozenset())
        env = dict(self.setup.env)
        # Rationale: a child sees (and writes) only its own directory and its own transfer folder,
        # never another role's copy of the task or the other role's transfer folder.
        writable = [self.xfer_for(role)]
        if role != "reference":
            # Rationale: load_inline builds once per review, not once per submission child (a CUDA
            # extension takes a minute to compile); the reference never shares a build directory.
            env["TORCH_EXTENSIONS_DIR"] = str(self.root / "submission-extensions")
            # Inductor's cache likewise, per review: never the host's /tmp/torchinductor_<user>, which
            # one review's submission could fill with code another review would load
            env["TORCHINDUCTOR_CACHE_DIR"] = str(self.root / "submission-extensions" / "inductor")
            # and XLA's compiled executables (JAX/Pallas): a child restarted for a fresh heap or a probe's
            # own calls would otherwise compile every shape it runs again (about 0.1 s a shape for a Pallas
            # kernel under the interpreter, 0.02 s from this cache). Any compile time is kept (the default
            # keeps only compiles over 1 s). Only submission-side children read or write it.
            env.update(_jax_cache_env(self.root / "submission-extensions" / "jax"))
            writable.append(self.root / "submission-extensions")
        env.update(env_extra or {})
        return SandboxWorker(role, workdir, limits or self.limits, env_extra=env, preludes=list(self.setup.preludes),
                             child_config=self.child_config(), wrapper=wrapper, gpu=gpu.for_device(self.device),
                             writable=writable, owned=self.owned, pid_target=pid_target, alarm_sink=self.alarms)

    def xfer_for(self, role: str) -> Path:
        return self.xfer if role == "reference" else self.sub_xfer

    def for_role(self, path: Path, role: str, *, fresh: bool = True) -> Path:
        """``path`` (in the reference's transfer folder) as a ``role`` child can reach it: the same
        path for the reference; for any other role the same place under ``xfer-submission/``, an
        existing file copied there (afresh each time: a submission may have rewritten its last copy),
        the parent folder created."""
        path = Path(path)
        if role == "reference" or not path.is_relative_to(self.xfer):
            return path
        dst = self.sub_xfer / path.relative_to(self.xfer)
        # a link the submission left in place of one of its folders is replaced by a folder
        if self._is_dir(path):
            os.close(safe_files.open_dir(dst, anchor=self.root, create=True, replace=True))
        else:
            os.close(safe_files.open_dir(dst.parent, anchor=self.root, create=True, replace=True))
            if safe_files.is_regular(path, anchor=self.root) and (
                    fresh or not safe_files.is_regular(dst, anchor=self.root)):
                src = self._parent_copy(path) or path
                # a link or FIFO the submission left there is replaced, not followed
                safe_files.write_bytes(dst, safe_files.read_bytes(src, anchor=self.root), anchor=self.root)
                self._own(dst)
        return dst

    def _own(self, path: Path) -> None:
        if (ident := disk.identity(path)) is not None:
            self.owned.add(ident)

    def _is_dir(self, path: Path) -> bool:
        try:
            os.close(safe_files.open_dir(path, anchor=self.root))
        except OSError:
            return False
        return True

    def load_tensors(self, path: Path) -> Any:
        """A tensor file under this session's folders, read without following anything a child left."""
        import tools.engine.harness.tensors as tensors  # torch: imported where tensors are read, after the children start

        return tensors.loads(safe_files.read_bytes(Path(path), anchor=self.root))

    def _parent_copy(self, path: Path) -> Path | None:
        p = self.parent_dir / path.relative_to(self.xfer)
        return p if p.is_file() else None

    def _translate(self, value: Any, role: str, dirs: list[tuple[Path, Path]]) -> Any:
        if isinstance(value, dict):
            return {k: self._translate(v, role, dirs) for k, v in value.items()}
        if isinstance(value, list):
            return [self._translate(v, role, dirs) for v in value]
        if isinstance(value, str) and value.startswith(str(self.xfer) + "/"):
            mapped = self.for_role(Path(value), role)
            if self._is_dir(Path(value)):
                dirs.append((Path(value), mapped))
            return str(mapped)
        return value

    def _copy_back(self, dirs: list[tuple[Path, Path]]) -> None:
        """Regular files a submission-side child wrote into a mapped output folder, copied to where
        the caller looks (never over a file already there: inputs stay the parent's; links, FIFOs
        and devices are skipped, never followed or opened for a blocking read)."""
        for src, dst in dirs:
            for name in safe_files.names(dst, anchor=self.root):
                target = src / name
                if os.path.lexists(target):
                    continue
                try:
                    data = safe_files.read_bytes(dst / name, anchor=self.root)
                except OSError:
                    continue
                try:
                    safe_files.write_bytes(target, data, anchor=self.root, replace=False)
                except OSError:  # a file there already, or a link where the caller's folder was
                    continue
                self._own(target)

    def _worker(self, role: str) -> SandboxWorker:
        w = self._workers.get(role)
        if w is None:
            w = self._new_worker(role)
            self._workers[role] = w
        return w

    def prelaunch(self, roles: tuple[str, ...] = _PAIR) -> None:
        """Launch the children of ``roles`` that were never started in this session, without
        waiting: their interpreter and torch imports run while the parent does other work. Each is
        the same sandboxed child ``_ensure_loaded`` would start; no submission code runs in it
        before its ``load`` request. The reference's is not started ahead where the store holds
        answers of this task for this review's seed (``run_tag``): then it starts at the first request
        the store cannot answer, if any. Under another seed the cases differ and nearly every request
        would miss, so the child starts ahead as without a store."""
        for role in roles:
            if role in self._workers:
                continue
            if role == "reference" and (store := self.reference_store()) is not None \
                    and store.seen(self.run_tag):
                continue
            try:
                self._worker(role).launch()
            except Exception:  # noqa: BLE001 - raised again, and reported, where the role is used
                continue

    def _ensure_loaded(self, role: str) -> CallResult:
        """Start the role's child if needed and load its program; cached until the child dies."""
        if role in self.paired:
            # Rationale: a review that runs the submission runs the reference too; the second child
            # starts while the first loads instead of after it (first start of each only).
            self.prelaunch(self.paired)
        w = self._worker(role)
        cached = self._load_results.get(role)
        if cached is not None and (w.alive or not (cached.answered and cached.ok)):
            return cached
        request = format_of(self.submission).load_request(self.submission, role, w.workdir / "src")
        res = w.call("load", request, timeout=self.limits.startup_timeout_s)
        self._load_results[role] = res
        return res

    def stand_by(self, role: str, *, pid_target: int | None = None) -> None:
        """Launch a spare child for ``role`` (already started in this session) that a later ``restart`` puts
        in place of a used one: its interpreter and imports run while the current child still works, not
        while the parent waits (issue 34). A spare is the same sandboxed child a restart would start (the
        role's folder, limits, preludes and configuration); nothing of the task or the submission runs in
        it before its ``load`` request. Spares never put in place are stopped at ``close``. ``pid_target``:
        the pid the spare serves as (tools/engine/sandbox/pid_counter.py); only ``restart`` with the same
        target puts it in place."""
        current = self._workers.get(role)
        if current is None:
            return
        if not (current.alive or current.launched) and current.pid_target == pid_target:
            # stopped by a restart with no spare to put in its place: it starts again now, not at its next request
            try:
                current.launch()
            except Exception:  # noqa: BLE001, S110 - its next request starts it, and reports why it cannot
                pass
            return
        if pid_target is not None and any(x.pid_target == pid_target for x in self._spares.get(role, [])):
            return  # that child is already standing by (one per pid: a restart puts one in place)
        if pid_target is None and current.can_fork:
            return  # the restart forks one (tools/engine/sandbox/zygote.py): tens of milliseconds, not a start
        spare = self._new_worker(role, copy=False, pid_target=pid_target)
        try:
            spare.launch()
        except Exception:  # noqa: BLE001 - a restart starts a child as before, and reports why it cannot
            spare.release()
            return
        self._spares.setdefault(role, []).append(spare)

    def restart(self, role: str, *, pid_target: int | None = None) -> None:
        """The next request to ``role`` goes to a child no earlier request has touched: the current one if
        it has run nothing yet (``SandboxWorker.pristine``), else a spare ``stand_by`` launched, else a
        child started at that request. ``pid_target``: the pid that child serves as (None: the next free)."""
        self._load_results.pop(role, None)
        w = self._workers.get(role)
        if w is None:
            if pid_target is not None:  # the role's first child, started at its first request
                self._worker(role).pid_target = pid_target
            return
        if w.pristine and w.pid_target == pid_target:
            return
        if pid_target is None:
            forked = w.fork()
            if forked is not None and forked.answered and forked.ok:
                return
            # no fork could be made (or it did not come up, and its sandbox was stopped): a new sandbox, as before
        w.close()
        spares = self._spares.get(role) or []
        spare = next((x for x in spares if x.pid_target == pid_target), None)
        if spare is not None:
            spares.remove(spare)
            self._retired.append((role, w))
            self._workers[role] = spare
        else:
            w.pid_target = pid_target

    def served_pid(self, role: str) -> int | None:
        """The pid the role's current child serves requests as, from its ready message (sent before
        anything of the task or the submission ran)."""
        w = self._workers.get(role)
        pid = w.ready_info.get("pid") if w is not None and isinstance(w.ready_info, dict) else None
        return pid if isinstance(pid, int) else None

    def submission_alarms(self) -> list[dict[str, Any]]:
        """The alarms the submission's children raised in this session (the reference child runs the task's
        code, not the submission's), each file named relative to the submission's folder as the child saw it."""
        out = []
        for a in self.alarms:
            if a.get("role") == "reference":
                continue
            path = a.get("file")
            if isinstance(path, str) and path:
                src = self.root / str(a.get("role")) / "src"
                try:
                    path = str(Path(path).relative_to(src))
                except ValueError:
                    try:  # a session folder reached through a link
                        path = str(Path(path).resolve().relative_to(src.resolve()))
                    except (ValueError, OSError):
                        path = path if path.startswith("<") else os.path.basename(path)
            out.append({**a, "file": path} if path else dict(a))
        return out

    def load_submission(self) -> CallResult:
        return self._ensure_loaded("submission")

    # -- cases -------------------------------------------------------------------------------
    @staticmethod
    def case_key(case: Case) -> str:
        body = case.model_dump(exclude={"id", "label"})
        return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def reference(self, case: Case) -> ReferenceRun:
        """Inputs and expected outputs of ``case`` (memoised: the reference is deterministic)."""
        key = self.case_key(case)
        if key in self._ref_cache:
            return self._ref_cache[key]
        folder = self.xfer / key
        os.close(safe_files.open_dir(folder, anchor=self.root, create=True))
        inputs_path = folder / "inputs.pt"
        out_path = folder / "reference-out.pt"
        call = self._reference_request("reference_case", {
            "case": case.model_dump(), "inputs_path": str(inputs_path), "outputs_path": str(out_path)})
        run = ReferenceRun(case=case, call=call)
        if call.answered and call.ok:
            run.inputs_path = inputs_path
            self._own(inputs_path)
            run.outputs = self.load_tensors(out_path)
            run.meta = call.result
            run.parent_inputs = self.parent_dir / key / "inputs.pt"
            safe_files.write_bytes(run.parent_inputs, safe_files.read_bytes(inputs_path, anchor=self.root),
                                   anchor=self.root)
        safe_files.unlink(out_path, anchor=self.root)
        self._ref_cache[key] = run
        return run

    def run_submission(self, case: Case, ref: ReferenceRun, *, instruments: list[str] | None = None,
                       calls: int = 1, keep_inputs_after: bool = True, timeout: float | None = None,
                       options: dict[str, dict[str, Any]] | None = None) -> SubmissionRun:
        """Run the submission on ``ref``'s inputs; restarts its child after a crash.

        ``options`` maps an instrument name to its options (e.g. the Pallas interpreter mode)."""
        load = self._ensure_loaded("submission")
        if not (load.answered and load.ok):
            return SubmissionRun(case=case, call=load, load=load)
        return self._submission_call(self._workers["submission"], case, ref, instruments=instruments, calls=calls,
                                     keep_inputs_after=keep_inputs_after, timeout=timeout, options=options,
                                     restart_role="submission")

    def _submission_call(self, worker: SandboxWorker, case: Case, ref: ReferenceRun, *, instruments: list[str] | None,
                         calls: int, keep_inputs_after: bool, timeout: float | None,
                         options: dict[str, dict[str, Any]] | None, restart_role: str | None) -> SubmissionRun:
        assert ref.inputs_path is not None
        self._counter += 1
        inputs = self.for_role(ref.inputs_path, "submission")
        folder = inputs.parent
        out_path = folder / f"submission-out-{self._counter}.pt"
        after_path = folder / f"inputs-after-{self._counter}.pt"
        payload = {"case": case.model_dump(), "inputs_path": str(inputs),
                   "outputs_path": str(out_path), "instruments": instruments or [], "calls": calls,
                   "instrument_options": options or {},
                   "inputs_after_path": str(after_path) if keep_inputs_after else None}
        call = worker.call("run_submission", payload, timeout=timeout)
        run = SubmissionRun(case=case, call=call)
        if call.answered and call.ok:
            try:
                run.outputs = self.load_tensors(out_path)
                run.outputs_path = out_path
                self._own(out_path)
                if keep_inputs_after:
                    run.inputs_after = self.load_tensors(after_path)
            except Exception as exc:  # noqa: BLE001 - a forged/corrupt file is the submission's failure
                run.call = call.model_copy(update={"ok": False, "error": {
                    "type": type(exc).__name__, "message": f"output file unreadable: {exc}", "traceback": ""}})
            run.meta = call.result
        else:
            if not call.answered and restart_role is not None:
                self.restart(restart_role)
        safe_files.unlink(after_path, anchor=self.root)
        return run

    def side_run(self, role: str, case: Case, ref: ReferenceRun, *, wrapper: list[str],
                 limits: SandboxLimits | None = None, env_extra: dict[str, str] | None = None,
                 shutdown_timeout: float = 120.0) -> tuple[SubmissionRun, Path]:
        """Run the submission on ``ref``'s inputs once, in a fresh child of its own started under
        ``wrapper`` (a sanitizer) and ended gracefully so the wrapper can write its final report.
        Returns the run and the child's folder (its working directory, where reports land)."""
        limits = limits or self.limits
        worker = self._new_worker(role, limits=limits, wrapper=wrapper, env_extra=env_extra)
        try:
            request = format_of(self.submission).load_request(self.submission, "submission", worker.workdir / "src")
            load = worker.call("load", request, timeout=limits.startup_timeout_s)
            if not (load.answered and load.ok):
                return SubmissionRun(case=case, call=load, load=load), worker.workdir
            run = self._submission_call(worker, case, ref, instruments=None, calls=1, keep_inputs_after=False,
                                        timeout=limits.call_timeout_s, options=None, restart_role=None)
            run.load = load
        finally:
            exit_code = worker.shutdown(shutdown_timeout)
        run.meta = {**run.meta, "exit_code": exit_code}
        return run, worker.workdir

    def call(self, role: str, op: str, payload: dict[str, Any], *, timeout: float | None = None) -> CallResult:
        """Send a request registered by a child-side module (e.g. ``tools.engine.harness.integrity_requests``) to the
        ``role`` child, loading its program first. Returns the load's result if loading failed; a
        call the child did not answer restarts that child for the next request."""
        if role == "reference":
            return self._reference_request(op, payload, timeout=timeout)
        load = self._ensure_loaded(role)
        if not (load.answered and load.ok):
            return load
        dirs: list[tuple[Path, Path]] = []
        payload = self._translate(payload, role, dirs)
        call = self._workers[role].call(op, payload, timeout=timeout)
        self._copy_back(dirs)
        if not call.answered:
            self.restart(role)
        return call

    def task_check(self, case: Case, ref: ReferenceRun, sub: SubmissionRun) -> CallResult | None:
        """The task's own checker (GPU MODE ``check_implementation``) on the submission's output."""
        if sub.outputs_path is None or ref.inputs_path is None:
            return None
        # the reference child cannot see the submission's folder: a copy of the output goes to its own
        candidate = ref.inputs_path.parent / f"candidate-{self._counter}.pt"
        try:
            data = safe_files.read_bytes(sub.outputs_path, anchor=self.root)
        except OSError as exc:
            return CallResult(answered=True, ok=False, error={
                "type": type(exc).__name__, "message": f"output file unreadable: {exc}", "traceback": ""})
        safe_files.write_bytes(candidate, data, anchor=self.root)
        try:
            return self._reference_request("check", {
                "case": case.model_dump(), "inputs_path": str(ref.inputs_path),
                "candidate_path": str(candidate)})
        finally:
            safe_files.unlink(candidate, anchor=self.root)

    def reference_call(self, op: str, ref: ReferenceRun, timeout: float | None = None, **payload: Any) -> CallResult:
        """Another request to the reference child about ``ref``'s case (e.g. ``reference_work``)."""
        assert ref.inputs_path is not None
        return self._reference_request(op, {"case": ref.case.model_dump(), "inputs_path": str(ref.inputs_path),
                                            **payload}, timeout=timeout)

    # -- the reference's answers, kept across reviews of the task ----------------------------------
    def _not_for_reference(self) -> frozenset[Path]:
        """The submission's own file, never given to the reference child (which has no use for it), so
        the reference's answers are a function of the task's files only (tools/engine/reference_store.py)."""
        sub = self.submission
        task = {sub.reference_file, sub.inputs_file, sub.manifest_file}
        return frozenset() if sub.submission_file in task else frozenset({sub.root_path / sub.submission_file})

    def _task_body(self) -> dict[str, Any] | None:
        """What every answer of the reference child is a function of, besides its request (None: not kept)."""
        files = _tree_digest(self.submission.root_path, leave_out=self._not_for_reference())
        if files is None:
            return None
        request = format_of(self.submission).load_request(self.submission, "reference", Path("/src"))
        spec = {k: v for k, v in (request.get("spec") or {}).items() if k not in ("submission_path", "entry")}
        return {"load": {**request, "spec": spec}, "files": files, "env": sorted(self.setup.env),
                "preludes": list(self.setup.preludes), "child": self.child_config(), "threads": self.limits.threads,
                "device": {k: getattr(self.device, k, None) for k in ("kind", "name", "capability", "has_gpu")},
                "code": code_version(), "libraries": library_versions()}

    def reference_store(self) -> reference_store.ReferenceStore | None:
        if self._store is False:
            root = reference_store.default_dir()
            body = self._task_body() if root is not None else None
            self._store = reference_store.ReferenceStore(root, body) if root is not None and body is not None else None
        return self._store if isinstance(self._store, reference_store.ReferenceStore) else None

    def _template(self, payload: Any, inputs: dict[str, str], outputs: dict[str, Path]) -> Any:
        """``payload`` with every transfer path replaced by its role: a file there is read (``<in:N>``, its
        SHA-256 in ``inputs``), a name with nothing there is written (``<out:N>``, in ``outputs``).
        Raises ValueError for anything else there (a folder): such a request is not kept."""
        if isinstance(payload, dict):
            return {k: self._template(v, inputs, outputs) for k, v in payload.items()}
        if isinstance(payload, list):
            return [self._template(v, inputs, outputs) for v in payload]
        if isinstance(payload, str) and payload.startswith(str(self.xfer) + "/"):
            path = Path(payload)
            if safe_files.is_regular(path, anchor=self.root):
                name = f"<in:{len(inputs)}>"
                inputs[name] = hashlib.sha256(safe_files.read_bytes(path, anchor=self.root)).hexdigest()
                return name
            if os.path.lexists(path):
                raise ValueError(f"not a file: {path.name}")
            name = f"<out:{len(outputs)}>"
            outputs[name] = path
            return name
        return payload

    def _reference_request(self, op: str, payload: dict[str, Any], *, timeout: float | None = None) -> CallResult:
        """One request to the reference child, answered from the store where it holds the answer (its files
        written where the child would have written them), else by the child, whose answer is then kept."""
        store = self.reference_store()
        body = None
        outputs: dict[str, Path] = {}
        if store is not None:
            inputs: dict[str, str] = {}
            # a case's id and label name it for the report; the child computes nothing from them (``case_key``)
            keyed = {k: ({n: x for n, x in v.items() if n not in ("id", "label")} if k == "case" and isinstance(v, dict)
                         else v) for k, v in payload.items()}
            try:
                body = store.body(op, self._template(keyed, inputs, outputs), inputs)
            except (ValueError, OSError):
                body = None
        if store is not None and body is not None and (kept := store.get(body)) is not None \
                and set(kept.files) <= set(outputs):
            for name, data in kept.files.items():
                safe_files.write_bytes(outputs[name], data, anchor=self.root)
                self._own(outputs[name])
            return CallResult(answered=True, ok=True, result=kept.result, child="reference#stored")
        load = self._ensure_loaded("reference")
        if not (load.answered and load.ok):
            return load
        call = self._workers["reference"].call(op, payload, timeout=timeout)
        if not call.answered:
            self.restart("reference")
        elif call.ok and store is not None and body is not None:
            files: dict[str, bytes] = {}
            try:
                written = {n: p for n, p in outputs.items() if safe_files.is_regular(p, anchor=self.root)}
                if sum(os.lstat(p).st_size for p in written.values()) > reference_store.MAX_ENTRY_BYTES:
                    return call
                files = {n: safe_files.read_bytes(p, anchor=self.root) for n, p in written.items()}
            except OSError:
                return call
            store.put(body, call.result, files)
            if self.run_tag is not None:
                store.mark(self.run_tag)
        return call

    def pristine_inputs(self, ref: ReferenceRun) -> list[Any]:
        """The case's inputs as the submission received them (transforms applied), from the file."""
        import tools.engine.harness.transforms as transforms

        assert ref.inputs_path is not None
        saved = self.load_tensors(ref.parent_inputs or ref.inputs_path)
        return transforms.apply(saved["inputs"], ref.case.transforms)

    def close(self) -> None:
        for spare in (s for spares in self._spares.values() for s in spares):
            spare.release()
        self._spares.clear()
        for role, w in self._workers.items():
            w.close()
            if self.keep_logs_in is not None:
                self.keep_logs_in.mkdir(parents=True, exist_ok=True)
                # the role's children in the order they ran: those a restart retired, then the last
                ran = [r for r_role, r in self._retired if r_role == role] + [w]
                for stream in ("stdout", "stderr"):
                    if data := _kept_log(ran, stream):
                        (self.keep_logs_in / f"{role}-{stream}.log").write_bytes(data)
            w.release()
        for _, r in self._retired:
            r.release()
        self._retired.clear()
        safe_files.remove_tree(self.root)
        if self._registered is not None:
            self._registered.unlink(missing_ok=True)
        self._workers.clear()
        self._load_results.clear()
        self._ref_cache.clear()
        store = self._store
        if isinstance(store, reference_store.ReferenceStore) and store.kept and \
                reference_store.trim_due(store.root, store.kept_bytes):
            reference_store.trim(store.root)
