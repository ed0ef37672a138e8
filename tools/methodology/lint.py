"""Reading a benchmark script for the timing faults that make a claimed speedup meaningless.

The script is parsed, never run. A *timed region* is the code between two reads of a host clock
(``time.perf_counter()``, ``time.time()``, ...) in one function, or between ``start.record()`` and
``end.record()`` of two CUDA events whose ``elapsed_time`` is read. Each fault is reported with the
line that shows it:

- ``host_timer_async``: a host clock stops after GPU work with no synchronisation in between: it
  measured how long the launches took to enqueue, not to run.
- ``no_sync_before_stop``: ``elapsed_time`` of CUDA events read without synchronising on the end event
  (or the device) after it was recorded.
- ``compile_in_timing``: compilation (``torch.compile``, ``triton.compile``, ``load_inline``, an
  autotuner's first call) inside the timed region.
- ``no_warmup``: the timed callable is not called once before the region starts (first-call
  compilation, autotuning, allocator and cache effects are timed).
- ``no_l2_flush``: repetitions timed back to back with nothing that evicts the L2 cache between them.
- ``same_input``: every repetition gets the very same argument objects (warm caches, and a kernel that
  memoises its result looks infinitely fast).
- ``side_stream``: the work runs on a side stream (``with torch.cuda.stream(s)``) while the clock and its
  synchronisation follow the current stream only.

``triton.testing.do_bench`` / ``do_bench_cudagraph`` and ``torch.utils.benchmark.Timer`` handle these
themselves; calls to them are not regions.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from tools.engine.source import parse as parse_source

HOST_CLOCKS = {"time.perf_counter", "time.time", "time.monotonic", "time.perf_counter_ns", "time.time_ns",
               "time.monotonic_ns", "timeit.default_timer", "perf_counter", "default_timer"}
_COMPILE = {"torch.compile", "triton.compile", "load_inline", "cpp_extension.load", "torch.utils.cpp_extension.load",
            "torch.utils.cpp_extension.load_inline", "jax.jit"}
_NOT_WORK = {"print", "range", "len", "list", "append", "format", "float", "int", "str", "enumerate", "zip", "min",
             "max", "sum", "round", "sorted", "isinstance", "dict", "tuple", "set", "abs", "record", "elapsed_time",
             "synchronize", "Event", "Stream", "stream", "current_stream", "empty_cache", "reset_peak_memory_stats",
             "zero_", "fill_", "manual_seed", "seed", "no_grad", "inference_mode", "mean", "median", "std",
             "item", "cpu", "tolist", "numpy", "statistics.mean", "statistics.median"}
_SYNC_ATTRS = {"synchronize", "item", "cpu", "tolist", "numpy"}
_FLUSH_HINTS = ("zero_", "fill_", "flush", "l2", "cache", "clear")


class Fault(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    line: int
    message: str


@dataclass
class _Call:
    node: ast.Call
    name: str  # dotted name of the callee, "" if not a plain name/attribute chain
    pos: tuple[int, int]
    loops: tuple[ast.AST, ...]  # enclosing for/while loops, outermost first
    streams: tuple[ast.With, ...]  # enclosing `with torch.cuda.stream(...)` blocks


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    if isinstance(node, ast.Subscript):  # kernel[grid](...)
        return _dotted(node.value)
    if isinstance(node, ast.Call):
        inner = _dotted(node.func)
        return f"{inner}()" if inner else ""
    return ""


def _leaf(name: str) -> str:
    return name.rsplit(".", 1)[-1].rstrip("()")


class _Collector(ast.NodeVisitor):
    def __init__(self) -> None:
        self.calls: list[_Call] = []
        self.loops: list[ast.AST] = []
        self.streams: list[ast.With] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:  # nested functions: own scope
        return

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _loop(self, node: ast.AST) -> None:
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()

    visit_For = _loop  # type: ignore[assignment]
    visit_While = _loop  # type: ignore[assignment]

    def visit_With(self, node: ast.With) -> None:
        is_stream = any(isinstance(i.context_expr, ast.Call) and _leaf(_dotted(i.context_expr.func)) == "stream"
                        for i in node.items)
        if is_stream:
            self.streams.append(node)
        self.generic_visit(node)
        if is_stream:
            self.streams.pop()

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)  # arguments first: they are evaluated before the call
        self.calls.append(_Call(node, _dotted(node.func), (node.end_lineno or node.lineno, node.end_col_offset or 0),
                                tuple(self.loops), tuple(self.streams)))


def _scopes(tree: ast.Module) -> list[list[ast.stmt]]:
    out = [tree.body]
    out += [n.body for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def _calls(body: list[ast.stmt]) -> list[_Call]:
    c = _Collector()
    for stmt in body:
        c.visit(stmt)
    return sorted(c.calls, key=lambda x: x.pos)


def _is_work(c: _Call) -> bool:
    leaf = _leaf(c.name)
    if not c.name or c.name in HOST_CLOCKS or leaf in _NOT_WORK or c.name in _NOT_WORK:
        return False
    return not c.name.startswith(("time.", "np.", "numpy.", "math.", "statistics.", "logging.", "json."))


def _is_sync(c: _Call) -> bool:
    return _leaf(c.name) in _SYNC_ATTRS


def _is_compile(c: _Call) -> bool:
    return c.name != "re.compile" and (c.name in _COMPILE or _leaf(c.name) in ("compile", "load_inline", "warmup"))


def _is_device_sync(c: _Call) -> bool:
    return c.name in ("torch.cuda.synchronize", "cuda.synchronize", "torch.cuda.current_device().synchronize") or \
        c.name.endswith("cuda.synchronize")


def lint(source: str) -> list[Fault]:
    """The methodology faults in a benchmark script, one per (code, line), in line order."""
    try:
        tree = parse_source(source)
    except SyntaxError as exc:
        return [Fault(code="unparsable", line=exc.lineno or 1, message=f"the script does not parse: {exc.msg}")]
    faults: dict[tuple[str, int], Fault] = {}

    def add(code: str, line: int, message: str) -> None:
        faults.setdefault((code, line), Fault(code=code, line=line, message=message))

    for body in _scopes(tree):
        calls = _calls(body)
        for start, stop in _host_regions(calls) + _event_regions(calls, add):
            _check_region(calls, start, stop, add)
    return sorted(faults.values(), key=lambda f: (f.line, f.code))


def _host_regions(calls: list[_Call]) -> list[tuple[int, int]]:
    idx = [i for i, c in enumerate(calls) if c.name in HOST_CLOCKS]
    return [(a, b) for a, b in zip(idx, idx[1:])]


def _event_regions(calls: list[_Call], add) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    regions = []
    for i, c in enumerate(calls):
        if _leaf(c.name) != "elapsed_time" or not isinstance(c.node.func, ast.Attribute) or not c.node.args:
            continue
        s_name, e_name = _dotted(c.node.func.value), _dotted(c.node.args[0])
        starts = [j for j, x in enumerate(calls[:i]) if _leaf(x.name) == "record"
                  and isinstance(x.node.func, ast.Attribute) and _dotted(x.node.func.value) == s_name]
        ends = [j for j, x in enumerate(calls[:i]) if _leaf(x.name) == "record"
                and isinstance(x.node.func, ast.Attribute) and _dotted(x.node.func.value) == e_name]
        if not starts or not ends:
            continue
        s, e = starts[-1], ends[-1]
        synced = any(_is_device_sync(x) or (_leaf(x.name) == "synchronize" and isinstance(x.node.func, ast.Attribute)
                                            and _dotted(x.node.func.value) == e_name) for x in calls[e + 1:i])
        if not synced:
            add("no_sync_before_stop", c.node.lineno,
                f"{s_name}.elapsed_time({e_name}) is read without {e_name}.synchronize() or "
                f"torch.cuda.synchronize() after {e_name}.record() (line {calls[e].node.lineno}): the end event "
                f"may not have completed, so the time is wrong or the call fails")
        regions.append((s, e))
    return regions


def _check_region(calls: list[_Call], s: int, e: int, add) -> None:  # type: ignore[no-untyped-def]
    inside = calls[s + 1:e]
    work = [c for c in inside if _is_work(c)]
    if not work:
        return
    start_line, stop_line = calls[s].node.lineno, calls[e].node.lineno
    host = calls[s].name in HOST_CLOCKS
    last_work = max(i for i, c in enumerate(inside) if _is_work(c))
    if host and not any(_is_sync(c) for c in inside[last_work + 1:]):
        add("host_timer_async", stop_line,
            f"the host clock stops at line {stop_line} after GPU work (line {inside[last_work].node.lineno}) with no "
            f"torch.cuda.synchronize() in between: kernel launches are asynchronous, so this measures how long "
            f"the launches took to enqueue, not how long they ran")
    compiles = [c for c in inside if _is_compile(c)]
    for c in compiles:
        add("compile_in_timing", c.node.lineno,
            f"{c.name}() is called inside the timed region (lines {start_line}-{stop_line}): compilation time "
            f"is measured as kernel time")
    before = {c.name for c in calls[:s] if _is_work(c)}
    timed = [c for c in work if not c.name.startswith(("torch.empty", "torch.zeros", "torch.randn", "torch.rand"))
             and not _is_compile(c)]
    cold = [c for c in timed if c.name not in before]
    if cold and not compiles:  # a compile in the region is the cause already reported
        c = cold[0]
        add("no_warmup", c.node.lineno,
            f"{c.name}() is first called inside the timed region (line {c.node.lineno}) with no warm-up call "
            f"before line {start_line}: JIT compilation, autotuning and first-touch allocation are timed")
    # repetitions: a loop inside the region, or the region inside a loop
    loops = {id(lp): lp for c in work for lp in c.loops}
    if loops:
        loop_calls = [c for c in calls if any(id(lp) in loops for lp in c.loops)]
        flushes = [c for c in loop_calls if any(h in c.name.lower() for h in _FLUSH_HINTS)]
        if not flushes:
            c = timed[0] if timed else work[0]
            add("no_l2_flush", c.node.lineno,
                f"repetitions of {c.name}() are timed back to back (loop at line {c.loops[-1].lineno}) with nothing "
                f"that evicts the L2 cache between them: inputs that fit in L2 are read from cache, not memory")
        for c in timed:
            loop = c.loops[-1] if c.loops else None
            if loop is None:
                continue
            assigned = {n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            args = list(c.node.args) + [k.value for k in c.node.keywords]
            names = [a for a in args if isinstance(a, ast.Name) or isinstance(a, ast.Starred)]
            if args and len(names) == len(args) and not any(
                    isinstance(a, ast.Name) and a.id in assigned for a in args):
                add("same_input", c.node.lineno,
                    f"every repetition of {c.name}() gets the same argument objects (line {c.node.lineno}): caches "
                    f"stay warm and a kernel that memoises its result looks free; rotate through several inputs")
                break
    if any(c.streams for c in work):
        stream_work = next(c for c in work if c.streams)
        if not any(c.streams for c in (calls[s], calls[e])) and not any(_is_device_sync(c) for c in inside):
            add("side_stream", stream_work.node.lineno,
                f"{stream_work.name}() runs on a side stream (with torch.cuda.stream at line "
                f"{stream_work.streams[-1].lineno}) but the clock at lines {start_line}-{stop_line} follows the "
                f"current stream and nothing synchronises the device: the side stream's work is not measured")
