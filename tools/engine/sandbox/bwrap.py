"""The bubblewrap command line that encloses one sandbox child.

The child gets: a new user namespace (also when the reviewer is root: without it a root child keeps
CAP_SYS_ADMIN and can unmount or remount its way out), no capabilities, new PID/IPC/UTS/network/
cgroup namespaces, no further user namespaces, its own session, death with its parent, the seccomp
filter of tools/engine/sandbox/seccomp_filter.py, and a filesystem holding only what it needs:

- read-only: ``/usr`` (and the ``/bin``, ``/lib*``, ``/sbin`` links or directories), the Python
  installation and virtual environment, the reviewer's own packages (not the rest of its checkout:
  no tests, no eval-set answer keys), a few files of ``/etc`` the dynamic loader and compilers read,
  CPU topology under ``/sys``;
- writable: the child's own directories (scratch, transfer folder), a private ``/tmp`` and
  ``/dev/shm`` (tmpfs, gone with the child);
- a minimal ``/dev`` (null, zero, random, ...) plus, when the review uses a GPU, that GPU's device
  node, the driver's control nodes, its libraries and the PCI part of ``/sys`` (tools/engine/sandbox/gpu.py);
- a fresh ``/proc`` of its own PID namespace, its machine-wide parts read-only (``PROC_READONLY``);
- nothing else: no home directory, no ``/root``, no ``/run`` (agent and docker sockets), no host
  ``/tmp`` or ``/dev/shm``, no other runs.

Paths keep their host names inside, so the paths in requests need no translation.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from tools.engine.sandbox.gpu import GpuAccess
from tools.engine.sandbox.libraries import library_paths
from tools.engine.sandbox.own_modules import OWN_PACKAGES

_PACKAGE_ROOT = Path(__file__).resolve().parents[3]
_ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives", "nsswitch.conf")
_SYS = ("/sys/devices/system/cpu", "/sys/devices/system/node")
# Rationale: the child's private /tmp and /dev/shm are RAM-backed; without a size they default to half
# the host's memory each. Capped (bwrap --size, 0.8+), and charged to the sandbox's memory budget
# (tools/engine/sandbox/memcg.py); a write past the cap fails with ENOSPC in the child.
TMPFS_MB = 2048


@functools.lru_cache(maxsize=1)
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def _help() -> str:
    exe = bwrap_path()
    if exe is None:
        return ""
    try:
        out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout + out.stderr


def supports(option: str) -> bool:
    return option in _help()


def _top_links() -> list[str]:
    """``/bin``, ``/lib``, ``/lib64``, ``/sbin``, ``/lib32``: the same links (merged /usr) or the
    same directories, read-only, as on the host."""
    args: list[str] = []
    for name in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            args += ["--ro-bind", str(p), str(p)]
    return args


def _python_roots() -> list[Path]:
    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix),
             Path(os.path.realpath(sys.executable)).parent.parent}
    for p in sys.path:
        # site-packages outside the prefixes (a user site, a PYTHONPATH entry the venv relies on)
        if p and "site-packages" in p and Path(p).is_dir():
            roots.add(Path(p))
    # PYTHONPATH folders holding installed distributions the child puts on its path (libraries.py)
    roots.update(Path(p) for p in library_paths())
    return sorted(r for r in roots if str(r) not in ("/", "/usr") and r.exists())


def _extra_readonly(wrapper: Iterable[str]) -> list[Path]:
    out = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        v = os.environ.get(var)
        if v and Path(v).is_dir():
            out.append(Path(v).resolve())
    for word in wrapper:
        exe = shutil.which(word) if os.sep not in word else word
        if exe and Path(exe).exists() and not str(Path(exe).resolve()).startswith("/usr/"):
            # a sanitizer outside /usr: its whole installation (bin/.. holds its libraries)
            out.append(Path(exe).resolve().parent.parent)
    return out


def _ro(paths: Iterable[Path | str]) -> list[str]:
    args: list[str] = []
    for p in paths:
        if os.path.lexists(p):
            args += ["--ro-bind", str(p), str(p)]
    return args


# the child's account: an ordinary user's, whose home exists and is the child's HOME (the role's
# home folder bound here); nothing in it names the reviewer (issue 28, item 3)
USER = "user"
HOME = "/home/user"


def passwd_file(folder: Path) -> Path:
    """A one-line /etc/passwd for the child's uid (getpass/torch caches look the user up), so the
    host's account list is not shown."""
    folder.mkdir(parents=True, exist_ok=True)
    uid, gid = os.getuid(), os.getgid()
    p = folder / "passwd"
    p.write_text(f"{USER}:x:{uid}:{gid}::{HOME}:/bin/bash\n")
    g = folder / "group"
    g.write_text(f"{USER}:x:{gid}:\n")
    return folder


# Rationale: the parts of /proc that act on the whole machine, read-only. A reviewer run as root (CI, many
# containers) maps the child to the host's root, for which the files under them are writable without any
# capability (kernel.core_pattern, sysrq-trigger's reboot); bubblewrap covers some of them only where the
# folder itself tests writable, and /proc/sys does not. These are the host's own entries bound read-only
# (the per-namespace values under /proc/sys/net and ns_last_pid still answer for the child's namespaces).
PROC_READONLY = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs")


def _tmpfs(path: str) -> list[str]:
    size = ["--size", str(TMPFS_MB * 2**20)] if supports("--size") else []
    return [*size, "--tmpfs", path]


def command(*, writable: Iterable[Path], readonly: Iterable[Path] = (), chdir: Path, etc_dir: Path,
            seccomp_fd: int | None, gpu: GpuAccess | None, wrapper: Iterable[str] = (),
            home: Path | None = None, script: tuple[Path, str] | None = None, init: bool = False) -> list[str]:
    """``gpu``: the GPU the child may use (tools/engine/sandbox/gpu.py), or None for none at all.
    ``home``: a folder bound at ``HOME``. ``script``: (a file of the parent's, where it appears inside),
    bound read-only. ``init``: the command runs as the pid namespace's first process (``--as-pid-1``:
    the child is its own init, tools/engine/sandbox/child.py ``boot``, and ``/proc/1/cmdline`` is its
    own, not bubblewrap's, which names the sandbox's folders)."""
    exe = bwrap_path()
    if exe is None:
        raise FileNotFoundError("bwrap")
    args = [exe, "--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--die-with-parent", "--new-session"]
    if supports("--disable-userns"):
        args += ["--disable-userns"]
    args += ["--ro-bind", "/usr", "/usr", *_top_links()]
    args += _ro(Path("/etc") / n for n in _ETC)
    args += ["--ro-bind", str(etc_dir / "passwd"), "/etc/passwd", "--ro-bind", str(etc_dir / "group"), "/etc/group"]
    args += ["--proc", "/proc", *_ro(p for p in PROC_READONLY if os.path.lexists(p)), "--dev", "/dev",
             *_tmpfs("/dev/shm"), *_tmpfs("/tmp")]
    if gpu is not None:
        for node in gpu.nodes:
            args += ["--dev-bind", node, node]
        args += _ro([*gpu.sys_paths, *gpu.readonly])
    else:
        args += _ro(_SYS)
    # the reviewer's packages a child imports (tools.engine.harness, tools.engine.sandbox, reviewer.core.errors, ...)
    args += _ro([*_python_roots(), *(_PACKAGE_ROOT / n for n in OWN_PACKAGES), *_extra_readonly(wrapper),
                 *readonly])
    for p in writable:
        p = Path(p)
        p.mkdir(parents=True, exist_ok=True)
        args += ["--bind", str(p), str(p)]
    if home is not None:
        home.mkdir(parents=True, exist_ok=True)
        args += ["--bind", str(home), HOME]
    if script is not None:
        args += ["--ro-bind", str(script[0]), script[1]]
    if init:
        args += ["--as-pid-1"]
    # the root tmpfs bwrap builds the tree on: read-only too, so nothing but the binds above is writable
    args += ["--remount-ro", "/", "--chdir", str(chdir)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return args
