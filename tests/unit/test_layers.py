"""The layers of the house, read from every import statement of every file under reviewer/ and tools/
(top level, inside functions, under TYPE_CHECKING: all of them).

- reviewer/core imports nothing of ours outside reviewer.core;
- tools/ imports nothing of reviewer outside reviewer.core;
- tools/engine imports no tool plugin (``tools.<x>`` outside ``tools.engine``);
- a plugin imports no other plugin;
- the rest of reviewer imports no plugin either (it finds plugins through tools/engine/registry.py);
- no import loop between files at all (every strongly connected component of the file graph is one file).

An edge goes to the module an import names: ``import a.b`` to ``a.b``; ``from pkg import name`` to
``pkg.name`` if that is a module, else to ``pkg``; relative imports are resolved against the file's package.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = ("reviewer", "tools")


@dataclass(frozen=True)
class Edge:
    """One import of ours: ``source`` imports ``target``, written at ``file:line``."""

    source: str
    target: str
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.source} imports {self.target}"


def module_name(root: Path, file: Path) -> str:
    parts = list(file.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    files = [f for top in OURS if (root / top).is_dir() for f in sorted((root / top).rglob("*.py"))]
    return {module_name(root, f): f for f in files}


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is one of our modules (None: not ours)."""
    parts = name.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in known:
            return candidate
    return None


def imports(root: Path, file: Path, known: dict[str, Path]) -> list[Edge]:
    source = module_name(root, file)
    package = source if file.name == "__init__.py" else source.rpartition(".")[0]
    rel = file.relative_to(root).as_posix()
    edges: list[Edge] = []
    for node in ast.walk(ast.parse(file.read_text(), str(file))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.append(full if full in known else base)
        for target in targets:
            resolved = _resolve(target, known)
            if resolved is not None and resolved != source:
                edges.append(Edge(source, resolved, rel, node.lineno))
    return edges


def graph(root: Path) -> list[Edge]:
    known = modules(root)
    return [e for f in known.values() for e in imports(root, f, known)]


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _plugin(module: str) -> str | None:
    """The plugin a ``tools.<x>...`` module belongs to (None: the engine, or the ``tools`` package itself)."""
    parts = module.split(".")
    if parts[0] != "tools" or len(parts) < 2 or parts[1] == "engine":
        return None
    return parts[1]


def layer_violations(edges: list[Edge]) -> list[str]:
    bad: list[str] = []
    for e in edges:
        if _within(e.source, "reviewer.core") and not _within(e.target, "reviewer.core"):
            bad.append(f"reviewer/core imports outside the core: {e}")
        if _within(e.source, "tools") and _within(e.target, "reviewer") and not _within(e.target, "reviewer.core"):
            bad.append(f"tools imports reviewer outside reviewer.core: {e}")
        if _within(e.source, "tools.engine") and _plugin(e.target):
            bad.append(f"the engine imports a plugin: {e}")
        if _within(e.source, "reviewer") and _plugin(e.target):
            bad.append(f"reviewer imports a plugin: {e}")
        source_plugin, target_plugin = _plugin(e.source), _plugin(e.target)
        if source_plugin and target_plugin and source_plugin != target_plugin:
            bad.append(f"a plugin imports another plugin: {e}")
    return bad


def import_loops(edges: list[Edge]) -> list[list[Edge]]:
    """Each strongly connected component of more than one file, as the imports that close it."""
    succ: dict[str, list[str]] = {}
    for e in edges:
        succ.setdefault(e.source, []).append(e.target)
        succ.setdefault(e.target, [])
    # Tarjan, iterative (the graph is a few hundred files; no recursion limit to worry about)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for start in sorted(succ):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    components.append(comp)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return [sorted((e for e in edges if e.source in c and e.target in c), key=str) for c in components]


def test_layers_hold() -> None:
    edges = graph(ROOT)
    assert len({e.source for e in edges}) > 100  # the reader found the code
    bad = layer_violations(edges)
    assert not bad, "\n".join(bad)


def test_no_import_loop_between_files() -> None:
    loops = import_loops(graph(ROOT))
    assert not loops, "\n\n".join("import loop:\n" + "\n".join(map(str, loop)) for loop in loops)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A tiny tree with one import of each forbidden kind and a loop through lazy and relative imports."""
    root = _tree(tmp_path, {
        "reviewer/__init__.py": "",
        "reviewer/graph.py": "",
        "reviewer/core/__init__.py": "",
        "reviewer/core/models.py": "def f():\n    from reviewer import graph\n",
        "tools/__init__.py": "",
        "tools/engine/__init__.py": "",
        "tools/engine/run.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tools.alpha import A\n",
        "tools/alpha/__init__.py": "from .impl import A\n",
        "tools/alpha/impl.py": "import tools.beta.x\nA = 1\n",
        "tools/beta/__init__.py": "",
        "tools/beta/x.py": "from ..alpha import A\nimport reviewer.core.models\n",
    })
    edges = graph(root)
    bad = layer_violations(edges)
    assert sorted(bad) == [
        "a plugin imports another plugin: tools/alpha/impl.py:1: tools.alpha.impl imports tools.beta.x",
        "a plugin imports another plugin: tools/beta/x.py:1: tools.beta.x imports tools.alpha",
        ("reviewer/core imports outside the core: "
         "reviewer/core/models.py:2: reviewer.core.models imports reviewer.graph"),
        "the engine imports a plugin: tools/engine/run.py:3: tools.engine.run imports tools.alpha",
    ], bad
    loops = import_loops(edges)
    assert [[str(e) for e in loop] for loop in loops] == [[
        "tools/alpha/__init__.py:1: tools.alpha imports tools.alpha.impl",
        "tools/alpha/impl.py:1: tools.alpha.impl imports tools.beta.x",
        "tools/beta/x.py:1: tools.beta.x imports tools.alpha",
    ]]
    # the upward import from tools into the rest of reviewer is named too
    (root / "tools/beta/x.py").write_text("from reviewer.graph import run\n")
    assert "tools imports reviewer outside reviewer.core: tools/beta/x.py:1: tools.beta.x imports reviewer.graph" \
        in layer_violations(graph(root))
    # and so is reviewer reaching into a plugin instead of going through the registry
    (root / "reviewer/graph.py").write_text("from tools.alpha import A\n")
    assert "reviewer imports a plugin: reviewer/graph.py:1: reviewer.graph imports tools.alpha" \
        in layer_violations(graph(root))


def test_from_import_of_a_module_is_an_edge_to_that_module(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "tools/__init__.py": "",
        "tools/engine/__init__.py": "from . import sandbox\nfrom .sandbox import run\n",
        "tools/engine/sandbox.py": "def run(): ...\n",
    })
    assert [(e.source, e.target) for e in graph(root)] == [("tools.engine", "tools.engine.sandbox")] * 2
