"""The layers of the house, read from every import statement of every file under reviewer/ and tools/
(top level, inside functions, under TYPE_CHECKING: all of them), every ``importlib.import_module(...)``
/ ``__import__(...)`` whose module name is a string constant (or an f-string or name bound by an
enclosing ``for`` over string constants), and every lookup of a tool by a constant name in the tool
registry (``registry.tools()["resources"]``).

- reviewer/core imports nothing of ours outside reviewer.core;
- tools/ imports nothing of reviewer outside reviewer.core;
- tools/engine imports no tool plugin (``tools.<x>`` outside ``tools.engine``);
- a plugin imports no other plugin;
- the rest of reviewer imports no plugin either (it finds plugins through tools/engine/registry.py);
- no import loop between files at all (every strongly connected component of the file graph is one file);
- a plugin reaches no other plugin's tool through the registry (that is a plugin import by another name),
  and the engine reaches none at all.

An edge goes to the module an import names: ``import a.b`` to ``a.b``; ``from pkg import name`` to
``pkg.name`` if that is a module, else to ``pkg``; relative imports are resolved against the file's package.
"""

from __future__ import annotations

import ast
import itertools
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OURS = ("reviewer", "tools")
REGISTRY = "tools.engine.registry"


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


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _loop_values(name: str, node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[str] | None:
    """The string constants ``name`` takes in an enclosing ``for name in ("a", "b")`` (None: unknown)."""
    while node in parents:
        node = parents[node]
        if (isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == name
                and isinstance(node.iter, (ast.Tuple, ast.List))
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.iter.elts)):
            return [e.value for e in node.iter.elts]  # type: ignore[attr-defined]
    return None


def _strings(arg: ast.expr, parents: dict[ast.AST, ast.AST]) -> list[str]:
    """The module names a dynamic import's argument can be, where the code spells them out."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.Name):
        return _loop_values(arg.id, arg, parents) or []
    if isinstance(arg, ast.JoinedStr):
        pieces: list[list[str]] = []
        for part in arg.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                pieces.append([part.value])
            elif (isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name)
                  and part.conversion == -1 and part.format_spec is None
                  and (values := _loop_values(part.value.id, arg, parents)) is not None):
                pieces.append(values)
            else:
                return []
        return ["".join(combo) for combo in itertools.product(*pieces)]
    return []


def _dynamic_import(node: ast.AST) -> ast.expr | None:
    """The module-name argument of ``importlib.import_module(...)``, ``import_module(...)`` or
    ``__import__(...)`` (None: not such a call)."""
    if not (isinstance(node, ast.Call) and node.args):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return node.args[0] if name in ("import_module", "__import__") else None


def _package(root: Path, file: Path) -> str:
    source = module_name(root, file)
    return source if file.name == "__init__.py" else source.rpartition(".")[0]


def _from_base(node: ast.ImportFrom, package: str) -> str:
    base = node.module or ""
    if node.level:
        up = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*up, base] if base else up)
    return base


def imports(root: Path, file: Path, known: dict[str, Path]) -> list[Edge]:
    source = module_name(root, file)
    package = _package(root, file)
    rel = file.relative_to(root).as_posix()
    edges: list[Edge] = []
    tree = ast.parse(file.read_text(), str(file))
    parents = _parents(tree)
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(node, package)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.append(full if full in known else base)
        elif (arg := _dynamic_import(node)) is not None:
            targets = _strings(arg, parents)
        for target in targets:
            resolved = _resolve(target, known)
            if resolved is not None and resolved != source:
                edges.append(Edge(source, resolved, rel, node.lineno))  # type: ignore[attr-defined]
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


@dataclass(frozen=True)
class Lookup:
    """A tool looked up by a constant name in the registry: ``source`` reaches tool ``tool`` at ``file:line``."""

    source: str
    tool: str
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.source} looks up tool {self.tool!r} in the registry"


def registry_lookups(root: Path, file: Path) -> list[Lookup]:
    """``tools()["x"]``, ``tools().get("x")`` and ``table["x"]`` after ``table = tools()``, where ``tools``
    is the registry's (imported under any name, or reached as ``registry.tools``)."""
    source = module_name(root, file)
    package = _package(root, file)
    tree = ast.parse(file.read_text(), str(file))
    functions: set[str] = set()  # names bound to the registry's tools()
    modules_: set[str] = {REGISTRY}  # names bound to the registry module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _from_base(node, package)
            for alias in node.names:
                if base == REGISTRY and alias.name == "tools":
                    functions.add(alias.asname or alias.name)
                elif f"{base}.{alias.name}" == REGISTRY:
                    modules_.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules_.update(a.asname for a in node.names if a.name == REGISTRY and a.asname)

    def is_table_call(node: ast.AST) -> bool:
        if not (isinstance(node, ast.Call) and not node.args):
            return False
        if isinstance(node.func, ast.Name):
            return node.func.id in functions
        return isinstance(node.func, ast.Attribute) and node.func.attr == "tools" and ast.unparse(node.func.value) in modules_

    tables = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and is_table_call(node.value)
              for t in node.targets if isinstance(t, ast.Name)}

    def is_table(node: ast.AST) -> bool:
        return is_table_call(node) or (isinstance(node, ast.Name) and node.id in tables)

    found: list[Lookup] = []
    rel = file.relative_to(root).as_posix()
    for node in ast.walk(tree):
        key: ast.expr | None = None
        if isinstance(node, ast.Subscript) and is_table(node.value):
            key = node.slice
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and is_table(node.func.value)):
            key = node.args[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            found.append(Lookup(source, key.value, rel, node.lineno))  # type: ignore[attr-defined]
    return found


def tool_owners(root: Path) -> dict[str, str]:
    """Tool name -> the module its ``kreview.tools`` entry point loads (pyproject.toml)."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    points = tomllib.loads(path.read_text()).get("project", {}).get("entry-points", {})
    return {name: target.partition(":")[0] for name, target in points.get("kreview.tools", {}).items()}


def registry_violations(root: Path) -> list[tuple[Lookup, str]]:
    """(lookup, why) for each registry lookup by name that crosses from a plugin into another plugin,
    or from the engine into any plugin."""
    owners = tool_owners(root)
    bad: list[tuple[Lookup, str]] = []
    for file in modules(root).values():
        for lookup in registry_lookups(root, file):
            source_plugin = _plugin(lookup.source)
            owner = _plugin(owners.get(lookup.tool, ""))
            if source_plugin and owner != source_plugin:
                bad.append((lookup, f"a plugin reaches another plugin through the registry: {lookup}"))
            elif _within(lookup.source, "tools.engine"):
                bad.append((lookup, f"the engine reaches a plugin through the registry: {lookup}"))
    return bad


# Known registry crossings, each (looking module, tool looked up) with why it is still here. Remove an
# entry when the crossing goes; test_registry_allowlist_is_current fails once an entry is no longer needed.
REGISTRY_ALLOWLIST: dict[tuple[str, str], str] = {}


def test_layers_hold() -> None:
    edges = graph(ROOT)
    assert len({e.source for e in edges}) > 100  # the reader found the code
    bad = layer_violations(edges)
    assert not bad, "\n".join(bad)


def test_no_import_loop_between_files() -> None:
    loops = import_loops(graph(ROOT))
    assert not loops, "\n\n".join("import loop:\n" + "\n".join(map(str, loop)) for loop in loops)


def test_no_plugin_reaches_another_through_the_registry() -> None:
    bad = [why for lookup, why in registry_violations(ROOT)
           if (lookup.source, lookup.tool) not in REGISTRY_ALLOWLIST]
    assert not bad, "\n".join(bad)


def test_registry_allowlist_is_current() -> None:
    hit = {(lookup.source, lookup.tool) for lookup, _ in registry_violations(ROOT)}
    stale = sorted(set(REGISTRY_ALLOWLIST) - hit)
    assert not stale, f"no longer needed, remove from REGISTRY_ALLOWLIST: {stale}"


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


def test_dynamic_imports_of_constant_names_are_edges(tmp_path: Path) -> None:
    """``importlib.import_module`` and ``__import__`` with a name the code spells out are imports like any
    other: here they close a loop and make the engine import a plugin."""
    root = _tree(tmp_path, {
        "tools/__init__.py": "",
        "tools/engine/__init__.py": "",
        "tools/engine/ops.py": "import importlib\nimportlib.import_module('tools.engine.probes')\n",
        "tools/engine/probes.py": "from tools.engine.ops import op\n",
        "tools/engine/formats.py": ("from importlib import import_module\n"
                                    "for name in ('a', 'b'):\n    import_module(f'tools.engine.fmt_{name}')\n"
                                    "def f():\n    __import__('tools.alpha')\n"
                                    "def g(x):\n    import_module(x)\n    import_module(f'tools.{x}')\n"),
        "tools/engine/fmt_a.py": "",
        "tools/engine/fmt_b.py": "",
        "tools/alpha/__init__.py": "",
    })
    edges = graph(root)
    assert sorted(map(str, edges)) == [
        "tools/engine/formats.py:3: tools.engine.formats imports tools.engine.fmt_a",
        "tools/engine/formats.py:3: tools.engine.formats imports tools.engine.fmt_b",
        "tools/engine/formats.py:5: tools.engine.formats imports tools.alpha",
        "tools/engine/ops.py:2: tools.engine.ops imports tools.engine.probes",
        "tools/engine/probes.py:1: tools.engine.probes imports tools.engine.ops",
    ]
    assert layer_violations(edges) == [
        "the engine imports a plugin: tools/engine/formats.py:5: tools.engine.formats imports tools.alpha"]
    assert [[str(e) for e in loop] for loop in import_loops(edges)] == [[
        "tools/engine/ops.py:2: tools.engine.ops imports tools.engine.probes",
        "tools/engine/probes.py:1: tools.engine.probes imports tools.engine.ops",
    ]]


def test_registry_lookups_across_plugins_are_seen(tmp_path: Path) -> None:
    """A plugin looking another plugin's tool up by name in the registry, however the registry's ``tools``
    is reached; its own tools and names it does not spell out are not crossings."""
    root = _tree(tmp_path, {
        "pyproject.toml": ('[project.entry-points."kreview.tools"]\n'
                           'alpha = "tools.alpha:AlphaTool"\nbeta = "tools.beta:BetaTool"\n'
                           'beta_static = "tools.beta.static:StaticTool"\n'),
        "tools/__init__.py": "",
        "tools/engine/__init__.py": "",
        "tools/engine/registry.py": "def tools():\n    return {}\n",
        "tools/engine/plan.py": "from .registry import tools\nFIRST = tools()['alpha']\n",
        "tools/alpha/__init__.py": ("from tools.engine.registry import tools as registered_tools\n"
                                    "def f():\n    return registered_tools()['beta']\n"
                                    "def g(name):\n    return registered_tools()[name]\n"),
        "tools/alpha/more.py": ("import tools.engine.registry as reg\nfrom tools.engine import registry\n"
                                "table = reg.tools()\nA = table['alpha']\nB = table.get('beta_static')\n"
                                "C = registry.tools()['gamma']\n"),
        "tools/beta/__init__.py": "",
        "tools/beta/static.py": "from tools.engine.registry import tools\nB = tools()['beta']\n",
    })
    assert sorted(why for _, why in registry_violations(root)) == [
        ("a plugin reaches another plugin through the registry: "
         "tools/alpha/__init__.py:3: tools.alpha looks up tool 'beta' in the registry"),
        ("a plugin reaches another plugin through the registry: "
         "tools/alpha/more.py:5: tools.alpha.more looks up tool 'beta_static' in the registry"),
        ("a plugin reaches another plugin through the registry: "
         "tools/alpha/more.py:6: tools.alpha.more looks up tool 'gamma' in the registry"),
        ("the engine reaches a plugin through the registry: "
         "tools/engine/plan.py:2: tools.engine.plan looks up tool 'alpha' in the registry"),
    ]
