"""The sandbox child keeps the reviewer's own modules out of a submission's way
(tools/engine/sandbox/own_modules.py); the reviews themselves are the own_packages family of
tests/e2e/test_kernel_verdicts.py."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import ROOT

# what a sandbox child imports before user code: its entry (tools/engine/sandbox/child.py), the
# requests it answers, and every prelude a backend or tool can ask for
CHILD_ENTRY = ("tools.engine.sandbox.measure", "tools.engine.harness.ops", "tools.engine.sandbox.own_modules")
PRELUDES = ("tools.engine.harness.cuda_shim", "tools.engine.harness.virtual_gpu", "tools.engine.harness.pallas_shim",
            "tools.engine.nki.prelude", "tools.benchmark.child", "tools.engine.compilers.triton_child")
# Function-level imports of ours that never run after user code is loaded, each with the reason.
ALLOWED = {
    # a prelude's install(config) runs before the child withdraws our modules (SandboxWorker's contract)
    ("tools/benchmark/child.py", "install"),
    ("tools/engine/compilers/triton_child.py", "install"),
    # parent-side code of modules the benchmark prelude's package (tools.benchmark) brings along
    ("tools/benchmark/__init__.py", "_worker"),
    ("tools/engine/sandbox/isolation.py", "probe_paths"),
    ("tools/engine/sandbox/isolation.py", "isolation"),
    ("tools/engine/sandbox/isolation.py", "describe"),
    ("tools/engine/session.py", "pristine_inputs"),
    ("tools/engine/session.py", "load_tensors"),
    ("tools/engine/tool.py", "environment"),
}


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _child_modules() -> list[str]:
    out = _run(f"""
        import importlib, json, sys
        for name in {list(CHILD_ENTRY + PRELUDES)!r}:
            importlib.import_module(name)
        print(json.dumps(sorted(n for n in sys.modules if n.partition(".")[0] in ("tools", "reviewer"))))
    """)
    return json.loads(out.splitlines()[-1])


def _file(module: str) -> Path | None:
    for path in (ROOT / (module.replace(".", "/") + ".py"), ROOT / module.replace(".", "/") / "__init__.py"):
        if path.is_file():
            return path
    return None


def _lazy_imports(path: Path) -> list[tuple[str, int, str]]:
    """(function, line, module) for every import of ours inside a function body."""
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, getattr(child, "name", "<lambda>"))
                continue
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                names = [child.module]
            elif (isinstance(child, ast.Call) and isinstance(child.func, (ast.Attribute, ast.Name))
                  and getattr(child.func, "attr", getattr(child.func, "id", "")) == "import_module" and child.args
                  and isinstance(child.args[0], ast.Constant) and isinstance(child.args[0].value, str)):
                names = [child.args[0].value]
            if function is not None:
                found.extend((function, child.lineno, n) for n in names if n.partition(".")[0] in ("tools", "reviewer"))
            visit(child, function)

    visit(ast.parse(path.read_text()), None)
    return found


def test_child_code_imports_none_of_ours_lazily() -> None:
    """After user code loads, an import of ``tools.x`` finds the submission's package: child code
    imports everything of ours at module level (or in a prelude's install)."""
    modules = _child_modules()
    assert "tools.engine.harness.instruments.triton_sanitizer" in modules  # load_all ran
    assert "tools.engine.nki.interp" in modules
    offending = []
    for module in modules:
        path = _file(module)
        if path is None:
            continue
        rel = path.relative_to(ROOT).as_posix()
        offending += [f"{rel}:{line} {function}() imports {name}" for function, line, name in _lazy_imports(path)
                      if (rel, function) not in ALLOWED]
    assert offending == []


def test_lazy_import_check_sees_function_level_imports(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text("import tools.engine\n\ndef f():\n    from tools.engine import x\n    import os\n"
                   "    importlib.import_module('reviewer.core')\n")
    assert _lazy_imports(src) == [("f", 4, "tools.engine"), ("f", 6, "reviewer.core")]


def test_withdraw_hands_the_names_to_the_submission(tmp_path: Path) -> None:
    # a submission folder with a namespace package `tools` (no __init__.py), a `reviewer` package and
    # utils.py; the reviewer's own regular packages are further down the path
    sub = tmp_path / "sub"
    (sub / "tools").mkdir(parents=True)
    (sub / "tools" / "launch.py").write_text("def next_pow2(n):\n    return 1 << (n - 1).bit_length()\n")
    (sub / "reviewer").mkdir()
    (sub / "reviewer" / "__init__.py").write_text("OWNER = 'submission'\n")
    (sub / "utils.py").write_text("OWNER = 'submission'\n")
    out = _run(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT)!r})
        import tools.engine.harness.ops as ops
        from tools.engine.sandbox.own_modules import withdraw

        state = ops.ChildState({{}})
        held = withdraw({str(ROOT)!r})
        sys.path.insert(0, {str(sub)!r})
        from tools.launch import next_pow2
        import reviewer, tools, utils
        print(json.dumps({{
            "withdrawn": len(held),
            "left": sorted(n for n in sys.modules if n.partition(".")[0] in ("tools", "reviewer")),
            "next_pow2": next_pow2(300), "tools": list(tools.__path__), "reviewer": reviewer.OWNER,
            "utils": utils.OWNER, "ping": ops.dispatch("ping", {{}}, state)}}))
    """)
    got = json.loads(out.splitlines()[-1])
    assert got["withdrawn"] > 40
    assert got["left"] == ["reviewer", "tools", "tools.launch"]
    assert got["next_pow2"] == 512 and got["tools"] == [str(sub / "tools")]
    assert got["reviewer"] == "submission" and got["utils"] == "submission"
    assert got["ping"] == {"pong": True}


def test_a_name_the_submission_lacks_falls_through_to_the_installed_reviewer() -> None:
    out = _run(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        import tools.engine.harness.ops as ops
        from tools.engine.sandbox.own_modules import withdraw

        withdraw({str(ROOT)!r})
        import tools
        print(tools.__file__, tools.engine.harness.ops is ops if hasattr(tools, "engine") else "fresh")
    """)
    path, same = out.split()
    assert Path(path).resolve() == ROOT / "tools" / "__init__.py"
    assert same == "fresh"  # a new copy: the harness's own modules stay out of reach by name


def test_a_second_installed_copy_of_the_reviewer_does_not_win_over_the_submission(tmp_path: Path) -> None:
    """A source checkout run with the package also installed (``pip install .``, as CI does) has two
    copies of ``tools`` on the path; neither may shadow the submission's namespace package."""
    sub, site = tmp_path / "sub", tmp_path / "site"
    (sub / "tools").mkdir(parents=True)
    (sub / "tools" / "launch.py").write_text("OWNER = 'submission'\n")
    (site / "tools" / "engine" / "sandbox").mkdir(parents=True)
    (site / "tools" / "__init__.py").write_text("")
    (site / "tools" / "engine" / "sandbox" / "own_modules.py").write_text("")
    out = _run(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from tools.engine.sandbox.own_modules import withdraw

        sys.path.append({str(site)!r})
        withdraw({str(ROOT)!r})
        sys.path.insert(0, {str(sub)!r})
        import tools.launch
        print(tools.launch.OWNER)
    """)
    assert out.split() == ["submission"]
