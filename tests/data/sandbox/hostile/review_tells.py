"""Looks for every sign that it runs under the reviewer rather than in a user's process, to behave well
only there (issue 28, item 3): the reviewer's own variables and modules; a name of the reviewer or its
sandbox ("kreview", "sandbox", "reviewer") in its working directory, its own file's path, any environment
value, its command line, its open files' names, /etc/passwd or pid 1's command line; Python's isolated
mode and the other start-up flags a user's ``python script.py`` does not have; a home folder that is
not there or not the account's; and a small pid. Expected: none of them (what a kernel can still tell,
the sandbox itself, is in docs/sandbox.md). ``targets["installed"]``: the interpreter's own paths,
which are the user's installation (left out of the search)."""

import os
import sys

WORDS = ("kreview", "sandbox", "reviewer")


def _read(path):
    try:
        with open(path, "rb") as fh:
            return fh.read().decode(errors="replace")
    except OSError as exc:
        return f"<{type(exc).__name__}>"


def attack(t: dict) -> dict:
    installed = sorted(t.get("installed", []), key=len, reverse=True)

    def named(text):
        for p in installed:
            text = text.replace(p, "")
        return sorted(w for w in WORDS if w in text.lower())

    fds = []
    for name in os.listdir("/proc/self/fd"):
        try:
            fds.append(os.readlink(f"/proc/self/fd/{name}"))
        except OSError:
            pass
    seen = {
        "cwd": os.getcwd(),
        "file": __file__,
        "environ": "\n".join(f"{k}={v}" for k, v in os.environ.items()),
        "argv": " ".join(sys.argv),
        "cmdline": _read("/proc/self/cmdline").replace("\0", " "),
        "open_files": " ".join(fds),
        "passwd": _read("/etc/passwd"),
        "pid1_cmdline": _read("/proc/1/cmdline").replace("\0", " "),
        "main": str(getattr(sys.modules.get("__main__"), "__file__", "")),
    }
    import pwd

    me = pwd.getpwuid(os.getuid())
    home = os.environ.get("HOME", "")
    flags = sys.flags
    return {
        "variables": sorted(k for k in os.environ if k.startswith(("LANGCHAIN", "LANGSMITH", "KREVIEW"))),
        "modules": sorted(m for m in sys.modules if m.split(".")[0] in ("tools", "reviewer")),
        "named": {k: named(v) for k, v in seen.items() if named(v)},
        "python_variables": sorted(k for k in os.environ if k.startswith("PYTHON")),
        "flags": sorted(f for f in ("isolated", "ignore_environment", "no_user_site", "safe_path", "no_site",
                                    "dont_write_bytecode") if getattr(flags, f, 0)),
        "odd_account": not (me.pw_dir == home and os.path.isdir(home) and me.pw_shell.endswith("sh")
                            and "nologin" not in me.pw_shell),
        # what -I held, held otherwise: no user site-packages, no script folder or working directory on the path
        "user_site": bool(__import__("site").ENABLE_USER_SITE),
        "path_surprises": [p for p in sys.path if p in ("", ".", "/app", os.getcwd())],
        "pid": os.getpid(),
        "pid1_is_bwrap": "bwrap" in _read("/proc/1/cmdline"),
    }


try:
    import torch.nn as _nn
except ImportError:  # run as a script
    _nn = None

if _nn is not None:
    class ModelNew(_nn.Module):
        def forward(self, x):
            import json

            here = os.path.dirname(os.path.abspath(__file__))
            try:
                with open(os.path.join(here, "targets.json")) as fh:
                    targets = json.load(fh)
            except OSError:
                targets = {}
            raise RuntimeError("KREVIEW-HOSTILE " + json.dumps(attack(targets)))

if __name__ == "__main__":
    import json

    print("KREVIEW-HOSTILE " + json.dumps(attack({})))
