"""Reading a submission's Python without running it: names, kernel bodies, reachability, the
conditions a call sits under.

Everything here works on the AST of files the parent only reads. Names are resolved through the
file's imports (``F.softmax`` -> ``torch.nn.functional.softmax``); a method call on an unknown object
keeps only its method name (``x.softmax`` -> ``.softmax``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tools.engine.source import SourceFile, dotted, in_kernel, in_main_block

# Rationale: a call guarded by the device is a CPU fallback, not a size threshold: on a GPU the
# kernel path runs, on a CPU-only reviewer the library path runs and the kernel is not exercised.
_DEVICE_WORDS = ("is_cuda", "device", "cuda.is_available", "is_available", "TRITON_INTERPRET", "is_cpu",
                 "interpret")


@dataclass
class CallSite:
    node: ast.Call | ast.BinOp
    target: str
    """Resolved dotted name (``torch.softmax``), ``.method`` for a method call, or ``@``."""
    function: str | None
    """The enclosing function's qualified name (``ModelNew.forward``); None at module level."""
    context: str
    """``unconditional``, ``conditional``, ``device`` (guarded by the device), ``fallback`` (inside
    an ``except`` handler), or ``module`` (runs at import)."""
    gate: str | None = None
    """The source text of the condition (or ``except ...``) that guards it, if any."""

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def end_line(self) -> int:
        return getattr(self.node, "end_lineno", None) or self.node.lineno


def enclosing_function(src: SourceFile, node: ast.AST) -> str | None:
    cur = src.parents.get(node)
    names: list[str] = []
    while cur is not None:
        if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(cur.name)
        cur = src.parents.get(cur)
    if not names:
        return None
    names.reverse()
    # the top two levels are what ``functions`` is keyed by (module function or class method)
    return ".".join(names[:2]) if len(names) >= 2 and names[0] in src.classes else names[0]


def local_context(src: SourceFile, node: ast.AST) -> tuple[str, str | None]:
    """How ``node`` is guarded inside its own function: the innermost guard wins."""
    child, cur = node, src.parents.get(node)
    while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(cur, ast.ExceptHandler):
            return "fallback", "except " + (ast.unparse(cur.type) if cur.type else "") + ":"
        if isinstance(cur, (ast.If, ast.IfExp, ast.While)) and child is not cur.test:
            gate = ast.unparse(cur.test)
            negated = isinstance(cur, (ast.If, ast.IfExp)) and _in_orelse(cur, child)
            text = f"not ({gate})" if negated else gate
            return ("device" if any(w in gate for w in _DEVICE_WORDS) else "conditional"), text
        if isinstance(cur, ast.Match):
            return "conditional", "match " + ast.unparse(cur.subject)
        if isinstance(cur, ast.BoolOp) and child is not cur.values[0]:
            return "conditional", ast.unparse(cur.values[0])
        child, cur = cur, src.parents.get(cur)
    if cur is None:
        return "module", None
    if isinstance(cur, ast.Lambda):
        return "unconditional", None
    # an early ``return`` under a condition earlier in the same function also gates what follows
    gate = _early_exit_gate(src, cur, node)
    if gate is not None:
        return gate
    return "unconditional", None


def _in_orelse(stmt: ast.If | ast.IfExp, child: ast.AST) -> bool:
    orelse = stmt.orelse if isinstance(stmt.orelse, list) else [stmt.orelse]
    return any(child is o for o in orelse)


def _early_exit_gate(src: SourceFile, func: ast.AST, node: ast.AST) -> tuple[str, str] | None:
    """``if cond: return ...`` before ``node`` in the same body: ``node`` runs only when not cond."""
    # find the statement of func's body that contains node
    stmt, cur = node, src.parents.get(node)
    while cur is not None and cur is not func:
        stmt, cur = cur, src.parents.get(cur)
    body = getattr(func, "body", [])
    for s in body:
        if s is stmt:
            break
        # Rationale: ``if bad: raise`` is validation, not a second path; only an early return is.
        if isinstance(s, ast.If) and any(isinstance(x, ast.Return) for x in ast.walk(s)):
            gate = ast.unparse(s.test)
            kind = "device" if any(w in gate for w in _DEVICE_WORDS) else "conditional"
            return kind, f"not ({gate})"
    return None


def reachable_functions(src: SourceFile, entries: list[str]) -> dict[str, tuple[str, str | None]]:
    """Functions reachable from ``entries`` (qualified names), each with how it is reached:
    (``always``, None) if some chain of unconditional calls leads to it from an entry, else the
    guard of a call site that reaches it (``conditional``/``device``/``fallback``, gate text)."""
    reach: dict[str, tuple[str, str | None]] = {}
    for e in entries:
        if e in src.functions:
            reach[e] = ("always", None)
        elif e in src.classes:
            for name in src.functions:
                if name.startswith(e + "."):
                    reach[name] = ("always", None)
    changed = True
    while changed:
        changed = False
        for name, (how, gate) in list(reach.items()):
            func = src.functions[name]
            owner = name.split(".")[0] if "." in name else None
            for node in ast.walk(func):
                ref = _ref_name(node)
                if ref is None:
                    continue
                for target in _targets(src, ref, owner, node):
                    ctx, g = local_context(src, node)
                    new = ("always", None) if how == "always" and ctx == "unconditional" else (
                        (ctx, g) if ctx != "unconditional" else (how, gate))
                    old = reach.get(target)
                    if old is None or (old[0] != "always" and new[0] == "always"):
                        reach[target] = new
                        changed = True
    return reach


def _ref_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.attr
    return None


def _targets(src: SourceFile, ref: str, owner: str | None, node: ast.AST) -> list[str]:
    out = []
    if ref in src.functions:
        out.append(ref)
    if ref in src.classes:
        out += [n for n in src.functions if n.startswith(ref + ".")]
    if owner is not None and isinstance(node, ast.Attribute) and f"{owner}.{ref}" in src.functions:
        out.append(f"{owner}.{ref}")
    return out


def call_sites(src: SourceFile, reach: dict[str, tuple[str, str | None]] | None = None,
               include_kernels: bool = False) -> list[CallSite]:
    """Calls (and ``@`` products) outside kernel bodies and the ``__main__`` block, each with the
    guard it runs under. With ``reach``, only module-level code and reachable functions."""
    sites = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call):
            target = dotted(src, node.func)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            target = "@"
        else:
            continue
        if target is None or (not include_kernels and in_kernel(src, node)) or in_main_block(src, node):
            continue
        func = enclosing_function(src, node)
        ctx, gate = local_context(src, node)
        if func is not None and reach is not None:
            if func not in reach:
                continue
            how, fgate = reach[func]
            if ctx == "unconditional" and how != "always":
                ctx, gate = how, fgate
        sites.append(CallSite(node=node, target=target, function=func, context=ctx, gate=gate))
    return sites


def entry_points(src: SourceFile, wanted: list[str]) -> list[str]:
    """What the harness calls, of ``wanted`` (the manifest entry, ``ModelNew`` (all its methods) /
    ``custom_kernel``: ``SubmissionFormat.submission_names``), falling back to every top-level
    definition if none is found."""
    found = [w for w in wanted if w in src.functions or w in src.classes]
    return found or list(src.functions)
