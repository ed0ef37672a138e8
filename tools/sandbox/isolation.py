"""Process isolation of a sandbox child beyond its scrubbed environment.

A scrubbed environment is not enough on its own: a child running as the same user can read
``/proc/<pid>/environ`` of its parent and of every other process of that user (the reviewer, the
shell that started it), which is where API keys and tokens live, and print them into its error
message and so into a review that may be published. Each child therefore starts in its own PID and
mount namespaces with a fresh ``/proc`` (util-linux ``unshare --pid --fork --mount-proc``, plus a
user namespace when the reviewer is not root): it sees only its own processes, and when it exits
every process it started is killed with it. A network namespace leaves it without a network.

Where namespaces are unavailable (no ``unshare``, or unprivileged user namespaces switched off) the
child runs without them, and the review's environment says so, never silently; the parent also
redacts the values of its own secret-looking variables from whatever text the child sends back.
``KREVIEW_SANDBOX_NAMESPACES=0`` turns namespaces off.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE)", re.IGNORECASE)
_UNISOLATED = "the child can read other processes' /proc entries of the same user"
# Rationale: short values ("1", "true") would redact ordinary text; real secrets are longer.
_MIN_SECRET_LEN = 8


@dataclass(frozen=True)
class Isolation:
    prefix: tuple[str, ...]
    description: str
    readonly_fs: bool = False

    @property
    def namespaces(self) -> bool:
        return bool(self.prefix)


def _candidates(unshare: str) -> list[list[str]]:
    # --net: a fresh network namespace with only a loopback that is down, so a submission cannot
    # send what it reads anywhere (nothing in a child needs the network).
    base = ["--pid", "--fork", "--mount-proc", "--kill-child", "--net"]
    if os.geteuid() == 0:
        return [[unshare, *base]]
    # Rationale: --map-current-user keeps the child's uid as it is (util-linux >= 2.38); older
    # unshare only has --map-root-user.
    return [[unshare, "--map-current-user", *base], [unshare, "--map-root-user", *base]]


@functools.lru_cache(maxsize=1)
def isolation() -> Isolation:
    """The command prefix that puts a child in its own namespaces, probed once per process."""
    if os.environ.get("KREVIEW_SANDBOX_NAMESPACES", "1") == "0":
        return Isolation((), f"no namespaces (KREVIEW_SANDBOX_NAMESPACES=0): {_UNISOLATED}")
    unshare = shutil.which("unshare")
    if unshare is None:
        return Isolation((), f"no namespaces (util-linux unshare not found): {_UNISOLATED}")
    why = ""
    for prefix in _candidates(unshare):
        try:
            # The probe must see itself as PID 1 and no process but its own in /proc.
            out = subprocess.run([*prefix, "/bin/sh", "-c", 'echo $$; ls /proc | grep -c "^[0-9][0-9]*$"'],
                                 capture_output=True, text=True, timeout=10, check=False, env={"PATH": "/usr/bin:/bin"})
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = str(exc)
            continue
        lines = out.stdout.split()
        if out.returncode == 0 and len(lines) == 2 and lines[0] == "1" and int(lines[1]) <= 4:
            ro, ro_why = _readonly_probe(prefix)
            return Isolation(tuple(prefix), "PID, mount and network namespaces (private /proc, no network)"
                                            + (" (user namespace)" if os.geteuid() != 0 else "")
                                            + ("; filesystem read-only but for the child's own directories" if ro
                                               else f"; filesystem writable ({ro_why})"),
                             readonly_fs=ro)
        why = (out.stderr.strip() or out.stdout.strip())[:200]
    return Isolation((), f"no namespaces (unshare failed: {why}): {_UNISOLATED}")


def _readonly_probe(prefix: list[str]) -> tuple[bool, str]:
    """Whether a child in these namespaces can make the filesystem read-only but for its own
    directory (tools/sandbox/fsguard.py), tried once in a throwaway namespace."""
    base = tempfile.mkdtemp(prefix="kreview-fsguard-")
    try:
        out = subprocess.run([*prefix, sys.executable, "-I", str(Path(__file__).with_name("fsguard.py")), base],
                             capture_output=True, text=True, timeout=30, check=False)
        ok = out.returncode == 0 and (Path(base) / "w" / "ok").exists() and not (Path(base) / "outside").exists()
        return ok, "" if ok else (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1][:200]
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)[:200]
    finally:
        shutil.rmtree(base, ignore_errors=True)


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
