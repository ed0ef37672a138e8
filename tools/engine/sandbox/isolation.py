"""Which sandbox encloses submission code, probed once per process, and failing closed.

Every child that runs submission or reference code runs under bubblewrap (tools/engine/sandbox/bwrap.py)
with the seccomp filter of tools/engine/sandbox/seccomp_filter.py. ``isolation()`` starts one throwaway
child under exactly that command and measures from inside it (tools/engine/sandbox/measure.py) what held:
capabilities, seccomp mode, visible processes, network, which host paths it can see or write.
Only if all of it held is the sandbox in force; otherwise ``require()`` refuses to run submission
code (``SandboxUnavailable``, exit 2) with a hint on how to fix the machine, unless the user passed
``--unsafe-no-sandbox`` (``KREVIEW_UNSAFE_NO_SANDBOX=1``), which every review then records.

The parent also redacts the values of its own secret-looking variables from whatever text a child
sends back: a backstop for the unsafe mode, useless against encoded secrets, never the defence.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewer.core.errors import SandboxUnavailable
import tools.engine.sandbox.safe_files as safe_files

UNSAFE_ENV = "KREVIEW_UNSAFE_NO_SANDBOX"
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE)", re.IGNORECASE)
# Rationale: short values ("1", "true") would redact ordinary text; real secrets are longer.
_MIN_SECRET_LEN = 8
_HINT = ("install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap) and allow user namespaces "
         "(Ubuntu 24.04: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for "
         "bwrap; elsewhere: sysctl -w kernel.unprivileged_userns_clone=1 / user.max_user_namespaces > 0; in a "
         "container: run it with --security-opt seccomp=unconfined or allow unshare/clone), or pass "
         "--unsafe-no-sandbox to run submission code with your own privileges (recorded in the review)")
UNSAFE_DESCRIPTION = ("NO SANDBOX (--unsafe-no-sandbox): submission code ran with the reviewer's own user, "
                      "files, network and processes in reach")


@dataclass(frozen=True)
class Isolation:
    sandboxed: bool
    description: str
    unsafe: bool = False
    why: str = ""
    measured: dict[str, Any] = field(default_factory=dict)

    # kept for callers written against the unshare-based sandbox
    @property
    def namespaces(self) -> bool:
        return self.sandboxed

    @property
    def readonly_fs(self) -> bool:
        return self.sandboxed


def unsafe_requested() -> bool:
    return os.environ.get(UNSAFE_ENV, "") not in ("", "0")


def allow_unsafe() -> None:
    """``--unsafe-no-sandbox``: for this process and the reviewer processes it starts."""
    os.environ[UNSAFE_ENV] = "1"
    isolation.cache_clear()


def probe_paths(own: Path) -> dict[str, list[str]]:
    """Host paths a child must neither write nor see, and its own directory it must write."""
    from tools.engine.sandbox.bwrap import _PACKAGE_ROOT, HOME

    home = os.environ.get("HOME") or str(Path.home())
    write = ["/", "/usr", "/etc", str(_PACKAGE_ROOT / "tools"), sys.prefix, "/var/tmp"]
    # the host's home folders, each (a worker's child has a /home of its own holding only HOME, its
    # role's home folder: tools/engine/sandbox/bwrap.py)
    try:
        homes = sorted(str(p) for p in Path("/home").iterdir())
    except OSError:
        homes = []
    absent = [home, "/root", "/run", *homes, "/var/run", str(Path(tempfile.gettempdir()) / "kreview-host-marker"),
              str(_PACKAGE_ROOT / "tests"), str(_PACKAGE_ROOT / "eval_sets"), "/etc/shadow", "/dev/shm/kreview-host-marker"]
    absent = [a for a in absent if a != HOME]
    # the Python installation and kreview's own packages may live under /root or a home folder (a clone in
    # ~/kernel-reviewer, pyenv's ~/.pyenv): visible, read-only, by necessity. Such a folder must then hold
    # nothing but the way to them (``sparse``: the names it may list), so the rest of the home stays unseen.
    from tools.engine.sandbox.own_modules import OWN_PACKAGES

    allowed = {str(Path(p)) for p in (sys.prefix, sys.base_prefix, *(_PACKAGE_ROOT / n for n in OWN_PACKAGES))}
    hidden: list[str] = []
    sparse: dict[str, list[str]] = {}
    for a in absent:
        prefix = a.rstrip("/") + "/"
        under = [p for p in allowed if p == a or p.startswith(prefix)]
        if not under:
            hidden.append(a)
        elif a not in under:
            sparse[a] = sorted({p[len(prefix):].split("/")[0] for p in under})
    return {"write": write, "absent": hidden, "own": [str(own)], "sparse": sparse}


@functools.lru_cache(maxsize=1)
def isolation() -> Isolation:
    if unsafe_requested():
        return Isolation(False, UNSAFE_DESCRIPTION, unsafe=True, why="--unsafe-no-sandbox")
    import tools.engine.sandbox.bwrap as bwrap
    from tools.engine.sandbox.seccomp_filter import SeccompUnavailable, filter_fd

    if bwrap.bwrap_path() is None:
        return Isolation(False, "no sandbox", why="bubblewrap (bwrap) is not installed")
    base = Path(tempfile.mkdtemp(prefix="kreview-probe-"))
    markers = [Path(tempfile.gettempdir()) / "kreview-host-marker", Path("/dev/shm/kreview-host-marker")]
    fd = None
    try:
        for m in markers:
            try:
                m.touch()
            except OSError:
                pass
        try:
            fd = filter_fd()
        except SeccompUnavailable as exc:
            return Isolation(False, "no sandbox", why=str(exc))
        own = base / "w"
        cmd = bwrap.command(writable=[own], chdir=own, etc_dir=bwrap.passwd_file(base / "etc"), seccomp_fd=fd,
                            gpu=None)
        script = str(Path(__file__).with_name("measure.py"))
        try:
            out = subprocess.run([*cmd, sys.executable, "-I", script, json.dumps(probe_paths(own))],
                                 capture_output=True, text=True, timeout=60, check=False, pass_fds=(fd,),
                                 env={"PATH": "/usr/bin:/bin"})
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Isolation(False, "no sandbox", why=f"bwrap did not run: {exc}")
        if out.returncode != 0:
            return Isolation(False, "no sandbox", why=f"bwrap failed: {(out.stderr.strip() or out.stdout.strip())[-300:]}")
        try:
            measured = json.loads(out.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return Isolation(False, "no sandbox", why=f"the probe printed no measurement: {out.stdout[-200:]}")
        from tools.engine.sandbox.measure import problems

        bad = problems(measured)
        if bad:
            return Isolation(False, "no sandbox", why="bwrap ran but the isolation did not hold: " + "; ".join(bad),
                             measured=measured)
        return Isolation(True, describe(measured), measured=measured)
    finally:
        if fd is not None:
            os.close(fd)
        for m in markers:
            try:
                m.unlink()
            except OSError:
                pass
        safe_files.remove_tree(base)


def describe(m: dict[str, Any]) -> str:
    from tools.engine.sandbox.memcg import memory_limit_kind
    from tools.engine.sandbox.pids import pids_limit_kind

    return (f"bubblewrap, measured in the child: user namespace (uid {m.get('uid')}, capabilities "
            f"{m.get('cap_eff')}), seccomp filter (mount -> {m.get('mount')}, unshare -> {m.get('unshare_user')}), "
            f"private /proc ({m.get('visible_processes')} processes visible), no network (interfaces "
            f"{','.join(m.get('net_interfaces', [])) or 'none'}), filesystem: only the Python environment and the "
            f"task read-only, own directories writable, private /tmp and /dev/shm, no home/root/run/host tmp; "
            f"process limit: {pids_limit_kind()}; memory: {memory_limit_kind()}")


def require() -> Isolation:
    """The isolation to run submission code under, or ``SandboxUnavailable`` (fail closed)."""
    iso = isolation()
    if iso.sandboxed or iso.unsafe:
        return iso
    raise SandboxUnavailable(f"refusing to run submission code without a sandbox: {iso.why}", hint=_HINT)


def secret_values(environ: dict[str, str] | None = None) -> list[str]:
    """Values of the parent's secret-looking variables, longest first."""
    env = os.environ if environ is None else environ
    vals = {v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= _MIN_SECRET_LEN}
    return sorted(vals, key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    for s in secrets:
        if s in text:
            text = text.replace(s, "[redacted]")
    return text
