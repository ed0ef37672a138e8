"""The script a sandbox child's interpreter starts with: ``python /app/main.py``, no flags, no arguments.

Rationale: nothing a submission can read about its process names the reviewer (issue 28, item 3): the
command line, the script's path and text (``SOURCE`` below, written by the parent into a folder of its
own and bound read-only at ``SCRIPT``) and ``__main__``'s names are those of any program. The child's
configuration arrives as the first line on standard input, which is the request pipe; the module it
names (tools/engine/sandbox/child.py ``boot``) takes over, moves the pipe off standard input and puts
``/dev/null`` there. The script's own folder, the only path entry Python adds for a script, is taken
off ``sys.path`` first; there is nothing else in it.
"""

from __future__ import annotations

from pathlib import Path

SCRIPT = "/app/main.py"

SOURCE = '''import os
import sys


def _main():
    data = b""
    while not data.endswith(b"\\n"):
        chunk = os.read(0, 1 << 16)
        if not chunk:
            return 1
        data += chunk
    import importlib
    import json

    config = json.loads(data)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if p not in ("", here)]
    sys.path.insert(0, config["package_root"])
    return importlib.import_module(config["entry"]).boot(config)


if __name__ == "__main__":
    sys.exit(_main())
'''


def write(folder: Path) -> Path:
    """The script, in ``folder`` (the parent's, never a child's writable folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "main.py"
    p.write_text(SOURCE)
    return p
