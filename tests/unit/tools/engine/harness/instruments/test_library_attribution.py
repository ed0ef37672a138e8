"""Work an installed library does on its own caches inside a call is the library's, not the
submission's; the same actions by the submission (directly or through a library, on any other
file) are still the submission's.

On an H200 the README demo was rejected: Triton's first launch built its CUDA driver stub (a
temporary folder under TMPDIR, listed and removed by ``shutil.rmtree`` through file descriptors)
and typing code walked the stack, all charged to the launch line of submission.py as an attack on
the harness. Here a package installed outside the environment (a ``pip install --target`` folder
on the path, with its dist-info, as on that machine) does the same inside a call, in a fresh
process with the harness guard's audit hook, as a sandbox child has it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[6]

LIBRARY = textwrap.dedent('''
    """A library that builds something in its own temporary folder the first time it is called."""
    import os, shutil, sys, tempfile

    def build_stub():
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "cuda_utils.c"), "w") as fh:
            fh.write("int main(){}")
        fd = os.open(d, os.O_RDONLY)
        try:
            os.listdir(fd)
        finally:
            os.close(fd)
        shutil.rmtree(d)          # walks by descriptors: os.scandir(fd), os.remove(name, dir_fd=fd)
        sys._getframe(1)          # typing and pydantic do this on their own
        return 1

    def remove_tree(path):
        shutil.rmtree(path)
''')

SUBMISSION = textwrap.dedent('''
    import sys
    import fakelib

    def launch():
        return fakelib.build_stub()

    def attack(path):
        fakelib.remove_tree(path)

    def walk():
        return sys._getframe(1)
''')

DRIVER = textwrap.dedent('''
    import json, os, sys
    sys.path[:0] = [sys.argv[1], sys.argv[2]]      # the library folder, then the package root
    import tools.engine.harness.instruments.harness_guard as hg
    sys.path.insert(0, sys.argv[3])                  # the submission's folder, loaded after the harness
    import submission
    out = {}
    for name, call in (("launch", lambda: submission.launch()),
                       ("attack", lambda: submission.attack(sys.argv[4])),
                       ("walk", lambda: submission.walk())):
        hg._EVENTS_SEEN.clear()
        with hg.guard(sys.argv[3]) as data:
            call()
        out[name] = [(e["event"], e["site"]["file"], e["site"]["line"]) for e in data["events"]]
    print("RESULT " + json.dumps(out))
''')


def test_a_librarys_own_cache_work_is_not_the_submissions_but_the_same_elsewhere_is(tmp_path: Path) -> None:
    lib = tmp_path / "site"
    (lib / "fakelib-1.0.dist-info").mkdir(parents=True)
    (lib / "fakelib.py").write_text(LIBRARY)
    sub = tmp_path / "work" / "src"
    sub.mkdir(parents=True)
    (sub / "submission.py").write_text(SUBMISSION)
    victim = tmp_path / "harness-files"
    (victim / "inner").mkdir(parents=True)
    (victim / "inner" / "state.json").write_text("{}")
    tmp = tmp_path / "work" / "tmp"
    tmp.mkdir()
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    env = {"PATH": os.environ.get("PATH", "/usr/bin"), "TMPDIR": str(tmp), "HOME": str(tmp_path / "work" / "home"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-I", str(driver), str(lib), str(ROOT), str(sub), str(victim)],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    line = next((ln for ln in run.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line, run.stderr[-3000:]
    got = json.loads(line[7:])
    assert got["launch"] == [], got["launch"]  # the library's build folder under TMPDIR, its stack walk
    attack = {e for e, _, _ in got["attack"]}
    assert {"shutil.rmtree", "os.remove"} <= attack, got["attack"]  # through the library, another folder
    assert all(f == "submission.py" and ln == 9 for _, f, ln in got["attack"]), got["attack"]
    assert got["walk"] == [["sys._getframe", "submission.py", 12]]
    assert not victim.exists()  # the guard observes; isolation is what protects the host
