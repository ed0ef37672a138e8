"""The commands that run no submission load no framework: importing the CLI, its help, a usage error, a
missing path and ``show`` of a missing run leave torch, triton and jax unimported (issue 34: ``kreview
--help`` took seconds because torch was imported before the arguments were read). Each case runs in a
fresh interpreter, since this test process has torch loaded already. Timings: benchmarks/cli_startup.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT

FRAMEWORKS = ("torch", "triton", "jax", "jaxlib")

_PROBE = """
import json, sys
argv = json.loads(sys.argv[1])
code = None
if argv is not None:
    from reviewer.cli import main
    sys.argv = ["kreview", *argv]
    try:
        main()
    except SystemExit as exc:
        code = exc.code
else:
    import reviewer.cli
print(json.dumps({"code": code, "loaded": sorted(m for m in %r if m in sys.modules)}))
""" % (FRAMEWORKS,)


def _loaded(argv: list[str] | None, tmp_path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(argv)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                                       "KREVIEW_RUNS_DIR": str(tmp_path / "runs")})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_the_cli_loads_no_framework(tmp_path: Path) -> None:
    assert _loaded(None, tmp_path) == {"code": None, "loaded": []}


@pytest.mark.parametrize(("argv", "code"), [
    (["--help"], 0),
    (["--version"], 0),
    (["review", "--help"], 0),
    (["review", "no/such/submission"], 2),
    (["review", str(EXAMPLES / "softmax_triton"), "--seeds", "0"], 2),
    (["review", str(EXAMPLES / "softmax_triton"), "--device", "tpu"], 2),
    (["review", str(EXAMPLES / "softmax_triton"), "--only", "corectness"], 2),
    (["show", "19990101-000000-000000"], 2),
    (["runs"], 0),
    (["signoff", "19990101-000000-000000", "--approve", "--by", "x"], 2),
])
def test_commands_that_run_no_submission_load_no_framework(argv: list[str], code: int, tmp_path: Path) -> None:
    got = _loaded(argv, tmp_path)
    assert got["code"] in (code, None if code == 0 else code), got
    assert got["loaded"] == [], (argv, got)
