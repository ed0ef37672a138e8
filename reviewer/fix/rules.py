"""Rule-based rewrites, one per defect class the tools name. Each reads the parsed file and returns the
minimal edits that repair the class where its pattern occurs (no edits: the rule does not apply).

A rule only proposes; nothing it returns is shown before the sandbox rerun verifies it (reviewer/fix/verify.py).
Limits: Python sources with Triton kernels (``@triton.jit``) and the host functions that launch them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from reviewer.core.fixes import FixKind, TextEdit
from reviewer.fix.source import Program, after_node, insert_at, launches, line_before, replace_node


def _lang_alias(prog: Program) -> str:
    for node in ast.walk(prog.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "triton.language":
                    return a.asname or "triton.language"
        if isinstance(node, ast.ImportFrom) and node.module == "triton":
            for a in node.names:
                if a.name == "language":
                    return a.asname or "language"
    return "tl"


def _calls(node: ast.AST, *attrs: str) -> Iterator[ast.Call]:
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in attrs:
            yield n


def _parents(node: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: parent for parent in ast.walk(node) for child in ast.iter_child_nodes(parent)}


def _names(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


def _statement_of(fn: ast.FunctionDef, node: ast.AST) -> ast.stmt:
    """The innermost simple statement of ``fn`` holding ``node``."""
    simple = [s for s in ast.walk(fn) if isinstance(s, ast.stmt)
              and not isinstance(s, (ast.FunctionDef, ast.For, ast.While, ast.If, ast.With, ast.Try))
              and any(n is node for n in ast.walk(s))]
    return simple[0]


def _assigned_from(fn: ast.FunctionDef, call: ast.Call) -> str | None:
    """The name bound to ``call`` (or ``call.to(...)``) by a plain assignment, if any."""
    for s in ast.walk(fn):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            v = s.value
            inner = v.func.value if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) else None
            if v is call or inner is call:
                return s.targets[0].id
    return None


def _after_last_arg(call: ast.Call, text: str) -> TextEdit:
    last = max([*call.args, *call.keywords], key=lambda n: (n.end_lineno, n.end_col_offset))
    return after_node(last, text)


# Rationale: a block's last program covers indices past the end whenever the size is not a multiple
# of BLOCK; the bound is the kernel's own `offs < n` comparison, so the mask the author wrote elsewhere
# (or named `mask`) is reused; masked-off lanes read the identity of what consumes them.
def tail_mask(prog: Program) -> list[TextEdit]:
    edits: list[TextEdit] = []
    for k in prog.kernels():
        bounds = {c.left.id: c for c in ast.walk(k) if isinstance(c, ast.Compare) and len(c.ops) == 1
                  and isinstance(c.ops[0], ast.Lt) and isinstance(c.left, ast.Name)}
        named = {s.targets[0].id: s.value for s in ast.walk(k) if isinstance(s, ast.Assign)
                 and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and s.value in bounds.values()}
        for call in _calls(k, "load", "store"):
            store = call.func.attr == "store"  # type: ignore[attr-defined]
            if any(kw.arg == "mask" for kw in call.keywords) or len(call.args) > (2 if store else 1) or not call.args:
                continue
            offs = next((n for n in _names(call.args[0]) if n in bounds), None)
            if offs is None:
                continue
            cmp = bounds[offs]
            mask = next((name for name, v in named.items() if v is cmp), None) or prog.segment(cmp)
            extra = f", mask={mask}"
            if not store:
                extra += f", other={_identity(k, call)}"
            edits.append(_after_last_arg(call, extra))
    return edits


def _identity(k: ast.FunctionDef, load: ast.Call) -> str:
    var = _assigned_from(k, load)
    reducers = {c.func.attr for c in _calls(k, "max", "min") if c.args  # type: ignore[attr-defined]
                and isinstance(c.args[0], ast.Name) and c.args[0].id == var}
    return '-float("inf")' if "max" in reducers else 'float("inf")' if "min" in reducers else "0.0"


_VIEWS = {"reshape", "view", "flatten", "transpose", "permute", "t", "squeeze", "unsqueeze", "expand", "narrow",
          "movedim", "swapaxes", "as_strided"}


def _chain(node: ast.expr) -> tuple[str | None, list[str]]:
    """``x.reshape(...).contiguous()`` -> (``x``, [``reshape``, ``contiguous``]): a method chain's receiver name."""
    methods: list[str] = []
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        methods.insert(0, node.func.attr)
        node = node.func.value
    return (node.id if isinstance(node, ast.Name) else None), methods


def _tensor_inputs(w: ast.FunctionDef) -> dict[str, ast.stmt | None]:
    """Names ``w`` passes to a kernel launch that hold its inputs as given: a parameter (None), a name
    unpacked from one, or a view of one (the statement binding it)."""
    params = {a.arg for a in w.args.args} - {"self", "cls"}
    bound: dict[str, ast.stmt | None] = {p: None for p in params}
    for s in w.body:
        if not isinstance(s, ast.Assign) or len(s.targets) != 1:
            continue
        t, v = s.targets[0], s.value
        root, methods = _chain(v)
        if isinstance(t, ast.Tuple) and isinstance(v, ast.Name) and v.id in params:
            bound.update({e.id: s for e in t.elts if isinstance(e, ast.Name)})
        elif isinstance(t, ast.Name) and root in bound and methods and set(methods) <= _VIEWS | {"contiguous"}:
            bound[t.id] = s
    launched = {a.id for c in launches(w) for a in c.args if isinstance(a, ast.Name)}
    return {n: s for n, s in bound.items() if n in launched}


# Rationale: a kernel that computes addresses as row * n_cols reads a strided or transposed input as if
# it were packed; `.contiguous()` in the launching function hands it the layout it assumes (a copy
# only when the input is not already contiguous).
def contiguous(prog: Program) -> list[TextEdit]:
    edits: list[TextEdit] = []
    for w in prog.wrappers():
        made = {c.func.value.id for c in _calls(w, "contiguous")
                if isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)}
        # an input whose strides the launch passes is read through them: no layout assumed
        made |= {_chain(c)[0] for launch in launches(w) for c in _calls(launch, "stride")}
        for name, stmt in _tensor_inputs(w).items():
            if name in made or (isinstance(stmt, ast.Assign) and "contiguous" in _chain(stmt.value)[1]):
                continue
            if stmt is None:
                first = w.body[1] if ast.get_docstring(w) and len(w.body) > 1 else w.body[0]
                edits.append(line_before(prog, first, f"{name} = {name}.contiguous()"))
            elif isinstance(stmt.targets[0], ast.Name):  # type: ignore[attr-defined]
                edits.append(after_node(stmt.value, ".contiguous()"))  # type: ignore[attr-defined]
            else:
                code = f"{prog.indent_of(stmt)}{name} = {name}.contiguous()\n"
                edits.append(insert_at(stmt.end_lineno + 1, 0, code))  # type: ignore[operator]
    return edits


def _low_precision(expr: str) -> bool:
    return not any(t in expr for t in ("float32", "float64", "int"))


# Rationale: a sum kept in the input's fp16/bf16 keeps 11 (8) bits and overflows at 65504; an fp32
# accumulator, with the loads that feed it widened, is what the reference's own reduction does.
def fp32_accumulator(prog: Program) -> list[TextEdit]:
    tl, edits = _lang_alias(prog), []
    for k in prog.kernels():
        accs: list[str] = []
        for call in _calls(k, "zeros", "zeros_like"):
            var = _assigned_from(k, call)
            if call.func.attr == "zeros_like" and call.args:  # type: ignore[attr-defined]
                edits.append(replace_node(call, f"{tl}.zeros({prog.segment(call.args[0])}.shape, dtype={tl}.float32)"))
            else:
                dtype = next((kw.value for kw in call.keywords if kw.arg == "dtype"),
                             call.args[1] if len(call.args) > 1 else None)
                if dtype is None or not _low_precision(prog.segment(dtype)):
                    continue
                edits.append(replace_node(dtype, f"{tl}.float32"))
            if var:
                accs.append(var)
        edits += _widen_feeding_loads(prog, k, accs, tl)
    return edits


def _widen_feeding_loads(prog: Program, k: ast.FunctionDef, accs: list[str], tl: str) -> list[TextEdit]:
    parents, loads, out = _parents(k), [], []
    for s in ast.walk(k):
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id in accs:
            # an explicit narrowing of what is added (x.to(tl.float16)) is the same defect: widen it instead
            narrowing = [replace_node(c.args[0], f"{tl}.float32") for c in _calls(s.value, "to")
                         if c.args and _low_precision(prog.segment(c.args[0])) and "float" in prog.segment(c.args[0])]
            out += narrowing
            if narrowing:
                continue
            loads += list(_calls(s.value, "load"))
            feeders = set(_names(s.value))
            loads += [c for c in _calls(k, "load") if _assigned_from(k, c) in feeders]
    seen: set[int] = set()
    for c in loads:
        p = parents.get(c)
        if id(c) in seen or (isinstance(p, ast.Attribute) and p.attr == "to"):
            continue
        seen.add(id(c))
        out.append(after_node(c, f".to({tl}.float32)"))
    return out


# Rationale: exp(x) overflows to inf past x ~ 88 (fp32) and inf/inf is NaN; softmax is shift-invariant,
# so subtracting the row max first changes nothing mathematically and keeps every exponent <= 0.
def max_subtraction(prog: Program) -> list[TextEdit]:
    tl, edits = _lang_alias(prog), []
    for k in prog.kernels():
        maxed = {c.args[0].id for c in _calls(k, "max") if c.args and isinstance(c.args[0], ast.Name)}
        sums = [kw for c in _calls(k, "sum") for kw in c.keywords if kw.arg == "axis"]
        axis = f"axis={prog.segment(sums[0].value)}" if sums else "axis=0"
        for call in _calls(k, "exp", "exp2"):
            arg = call.args[0] if call.args else None
            if not isinstance(arg, ast.Name) or arg.id in maxed:
                continue
            maxed.add(arg.id)
            edits.append(line_before(prog, _statement_of(k, call), f"{arg.id} = {arg.id} - {tl}.max({arg.id}, {axis})"))
    return edits


# Rationale: program_id is int32, so pid * BLOCK * stride (or pid * a large factor) wraps past 2**31 - 1;
# widening the program id makes every offset derived from it int64.
def int64_offsets(prog: Program) -> list[TextEdit]:
    tl, edits = _lang_alias(prog), []
    for k in prog.kernels():
        parents = _parents(k)
        for call in _calls(k, "program_id"):
            p = parents.get(call)
            if isinstance(p, ast.Attribute) and p.attr == "to":
                continue
            edits.append(after_node(call, f".to({tl}.int64)"))
    return edits


def _simple(node: ast.AST) -> bool:
    return isinstance(node, (ast.Name, ast.Call, ast.Attribute, ast.Subscript))


# Rationale: a value computed in fp32 stored to a lower-precision output must be rounded once, on purpose,
# to the output's element type (the pointer's), not left to whatever the store does implicitly.
def store_cast(prog: Program) -> list[TextEdit]:
    edits = []
    for k in prog.kernels():
        if "float32" not in prog.segment(k):  # nothing computed wider than the output: nothing to round
            continue
        params = [a.arg for a in k.args.args]
        for call in _calls(k, "store"):
            if len(call.args) < 2:
                continue
            val = call.args[1]
            if isinstance(val, ast.Call) and isinstance(val.func, ast.Attribute) and val.func.attr == "to":
                continue
            ptr = next((n for n in _names(call.args[0]) if n in params), None)
            if ptr is None:
                continue
            seg = prog.segment(val)
            edits.append(replace_node(val, f"{seg if _simple(val) else f'({seg})'}.to({ptr}.dtype.element_ty)"))
    return edits


_CREATORS = {"empty", "zeros", "ones", "full", "empty_strided", "rand", "randn", "tensor"}


# Rationale: an output allocated as torch.float32 in the wrapper is wrong for every other input dtype;
# the input's own dtype is what the reference returns.
def wrapper_dtype(prog: Program) -> list[TextEdit]:
    edits = []
    for w in prog.wrappers():
        inputs = list(_tensor_inputs(w))
        if not inputs:
            continue
        for call in _calls(w, *_CREATORS):
            for kw in call.keywords:
                text = prog.segment(kw.value) if kw.arg == "dtype" else ""
                if text.startswith("torch.") and "float" in text:
                    edits.append(replace_node(kw.value, f"{inputs[0]}.dtype"))
    return edits


RULES: dict[FixKind, tuple[Callable[[Program], list[TextEdit]], str]] = {
    "tail_mask": (tail_mask, "mask the unmasked load/store with the kernel's own bound"),
    "contiguous": (contiguous, "make the inputs contiguous before the launch"),
    "fp32_accumulator": (fp32_accumulator, "accumulate in float32 (and widen the loads that feed it)"),
    "max_subtraction": (max_subtraction, "subtract the row max before exp"),
    "int64_offsets": (int64_offsets, "widen the program id to int64 so offsets cannot wrap"),
    "store_cast": (store_cast, "cast the stored value to the output's element type"),
    "wrapper_dtype": (wrapper_dtype, "allocate the output in the input's dtype, not a hard-coded one"),
}
