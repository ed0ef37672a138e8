"""The static half of the integrity check: what the submission's source says it does.

Reads the submission's own files (never runs them) and reports, with the line quoted:

- ``library``: calls to the operators the *reference* calls (its core computation), outside kernel
  bodies, each with the guard it runs under (always / a size threshold / the device / an ``except``
  fallback); C++ sources calling ``at::``/``torch::`` versions of them;
- ``reference_reuse``: importing the reference, inheriting its ``Model``, compiling it;
- ``harness``: monkeypatching library or harness functions, stack/gc introspection, raw file
  descriptors, reading grader files or the RNG seed, listing directories, exiting the process;
- ``deferred``: threads, processes, async tasks, exit hooks, finalizers, side streams, CUDA graphs;
- ``caching``: caches keyed on ``id()``, ``data_ptr()`` or a hash of the contents;
- ``precision``: TF32 (explicit, allowed, or ``tl.dot``'s default on fp32), fp16/bf16/fp8 casts,
  autocast: candidates only, the runtime tool weighs them against the task's dtype and tolerance;
- ``environment``: reading the process environment;
- ``state``: module-level, class or instance state the call path writes (counters, caches,
  ``global`` assignments, ``functools.lru_cache``; tools/engine/kept_state.py finds the writes,
  tools/integrity/module_state.py picks the concerns): a concern the
  runtime tool's many-calls probe settles.

Limits: a name bound dynamically (``getattr(torch, "soft" + "max")``, ``exec``) is seen only as
the dynamic access itself; the runtime trace is what catches the operator.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewer.core.submission import Submission
from tools.engine.harness.instruments.torch_ops import TORCH_NAMESPACES, base_name, kind_of
from tools.engine.formats import format_of
from tools.engine.source import SourceView, source_file
from tools.integrity.module_state import state_concerns
import tools.integrity.static_reading as S

# Rationale: these return facts about a tensor, not computed values; never the "core op".
_METADATA = {"size", "shape", "dim", "ndim", "numel", "stride", "is_contiguous", "element_size", "data_ptr",
             "item", "tolist", "storage_offset", "untyped_storage", "device", "dtype", "type", "nelement",
             "get_device", "is_floating_point", "requires_grad_", "eval", "train", "parameters",
             "named_parameters", "register_buffer", "register_parameter", "modules", "children",
             "no_grad", "inference_mode", "manual_seed", "cdiv", "next_power_of_2", "Parameter", "Module",
             "ModuleList", "Sequential", "Identity", "Dropout", "super", "__init__", "cuda", "cpu", "float",
             "double", "half", "bfloat16", "int", "long", "bool", "synchronize", "empty_cache",
             "is_available", "get_device_properties", "device_count", "current_device", "set_device",
             "Size", "finfo", "iinfo", "tensor", "as_tensor", "from_numpy", "numpy", "backward"}
_GENERIC = {"min", "max", "abs", "sum", "len", "range", "print", "isinstance", "getattr", "setattr", "hasattr",
            "tuple", "list", "dict", "set", "zip", "map", "enumerate", "sorted", "round", "pow", "all", "any"}

# Rationale: each reaches the harness's process state (stack, gc, fds, trace hooks, the process
# itself); a kernel needs none of them, so any use is an attempt, whatever it is for.
_HARNESS_CALLS = {
    "inspect.stack": "inspects the call stack", "inspect.currentframe": "inspects the call stack",
    "inspect.getouterframes": "inspects the call stack", "inspect.trace": "inspects the call stack",
    "sys._getframe": "inspects the call stack", "sys._current_frames": "inspects other threads' stacks",
    "traceback.extract_stack": "inspects the call stack", "traceback.walk_stack": "inspects the call stack",
    "gc.get_objects": "walks the garbage collector's objects (can reach the harness's tensors)",
    "gc.get_referrers": "walks the garbage collector's referrers", "gc.get_referents": "walks gc referents",
    "sys.settrace": "installs a trace hook", "sys.setprofile": "installs a profile hook",
    "threading.settrace": "installs a trace hook", "threading.setprofile": "installs a profile hook",
    "sys.addaudithook": "installs an audit hook",
    "os.write": "writes to a raw file descriptor (the result channel is one)",
    "os.dup": "duplicates a raw file descriptor", "os.dup2": "overwrites a raw file descriptor",
    "os.fdopen": "opens a raw file descriptor", "os.close": "closes a raw file descriptor",
    "os.closerange": "closes raw file descriptors", "os.pipe": "creates pipes",
    "os.kill": "signals a process", "os.killpg": "signals a process group", "os._exit": "exits the process",
    "sys.exit": "exits the process", "os.abort": "aborts the process", "signal.signal": "installs a signal handler",
    "signal.alarm": "arms a timer signal", "signal.setitimer": "arms a timer signal",
    "os.fork": "forks the process", "os.system": "runs a shell command",
    "unittest.mock.patch": "patches objects with mock", "mock.patch": "patches objects with mock",
    "torch.initial_seed": "reads the RNG seed", "torch.random.initial_seed": "reads the RNG seed",
    "torch.get_rng_state": "reads the RNG state", "torch.random.get_rng_state": "reads the RNG state",
    "torch.cuda.initial_seed": "reads the RNG seed", "torch.cuda.get_rng_state": "reads the RNG state",
    "numpy.random.get_state": "reads the RNG state", "random.getstate": "reads the RNG state",
    "os.listdir": "lists directories", "os.scandir": "lists directories", "os.walk": "walks directories",
    "glob.glob": "lists files by pattern", "glob.iglob": "lists files by pattern",
}
_HARNESS_PREFIXES = {"subprocess.": "starts a subprocess", "socket.": "opens a network socket",
                     "os.exec": "replaces the process", "os.spawn": "spawns a process",
                     "os.posix_spawn": "spawns a process", "multiprocessing.shared_memory": "maps shared memory"}
# Rationale: code that asks whether it is being traced can behave honestly only while observed.
_TRACE_PROBES = ("dispatch_mode", "function_mode", "_is_torch_function", "gettrace", "getprofile",
                 "_python_dispatch", "_get_current_dispatch")
# Rationale: switches that blind the operator trace for a stretch of code (every Python dispatch or function
# mode off, a dispatch key excluded, the mode stacks popped): a kernel's forward has no use for them
_TRACE_BLINDS = ("DisableTorchDispatch", "DisableTorchFunction", "_ExcludeDispatchKeyGuard",
                 "_unset_dispatch_mode", "_pop_torch_dispatch_stack", "_pop_torch_function_stack",
                 "_pop_mode", "_disable_current_modes", "_dispatch_tls_set_dispatch_key_excluded",
                 "_DisableFuncTorch",
                 # an operator called below the Python dispatch key (``op.redispatch(DispatchKeySet(CPU), ...)``)
                 # reaches no dispatch mode and no torch function (red team 2 and 12)
                 "redispatch", "DispatchKeySet")
# Rationale: memory read or written by address (a tensor's data_ptr()) is work on tensor data no trace and no
# withheld copy sees (tools/engine/harness/withheld_exports.py); a GPU kernel's host code never needs it.
# ctypes.cast and CDLL calls stay clean: passing a pointer to a compiled kernel is how ctypes launches one.
_RAW_MEMORY = {"ctypes.string_at": "reads memory by address", "ctypes.wstring_at": "reads memory by address",
               "ctypes.memmove": "copies memory by address", "ctypes.memset": "writes memory by address",
               "numpy.ctypeslib.as_array": "views memory by address as an array"}
_HARNESS_MODULES = ("tools.engine.harness", "tools.engine.sandbox", "tools.integrity", "reviewer")
_FRAME_ATTRS = {"f_back", "f_locals", "f_globals", "tb_frame", "gi_frame", "cr_frame", "f_builtins"}
# Rationale: a function's hidden state: the harness's wrappers keep what they wrap there (the plain thread
# starter was read back from a wrapper's __kwdefaults__, red team 7); a kernel's code has no use for it
_FUNCTION_INTERNALS = {"__kwdefaults__", "__closure__", "cell_contents"}
# Rationale: a thread native code starts, or Python run as a C callback on one, carries no trace mode
# (red team 6); ctypes launches compiled kernels without either
_NATIVE_THREADS = {"pthread_create": "starts a native thread", "CFUNCTYPE": "makes a C callback of Python code",
                   "PYFUNCTYPE": "makes a C callback of Python code", "WINFUNCTYPE": "makes a C callback of Python code"}
_SEED_METHODS = {"initial_seed", "get_state", "getstate", "get_rng_state"}

# Rationale: work started here outlives the call the harness times (threads, processes, async
# tasks, exit hooks, finalizers) or runs outside the stream it synchronizes (side streams).
_DEFERRED_CALLS = {
    "threading.Thread": "starts a thread", "threading.Timer": "starts a timer thread",
    "_thread.start_new_thread": "starts a thread", "_thread.start_new": "starts a thread",
    "concurrent.futures.ThreadPoolExecutor": "starts a thread pool",
    "concurrent.futures.ProcessPoolExecutor": "starts a process pool",
    "atexit.register": "registers work to run at exit", "weakref.finalize": "registers a finalizer",
    "asyncio.run": "runs async tasks", "asyncio.create_task": "schedules an async task",
    "asyncio.ensure_future": "schedules an async task", "asyncio.get_event_loop": "uses an event loop",
    "torch.cuda.Stream": "creates a side CUDA stream", "torch.cuda.stream": "switches to another CUDA stream",
    "torch.cuda.ExternalStream": "uses an external CUDA stream", "torch.cuda.set_stream": "switches the CUDA stream",
    "torch.Stream": "creates a side stream",
}
_DEFERRED_PREFIXES = {"multiprocessing.": "starts processes", "concurrent.futures.": "runs work in a pool"}
_STREAM_SYNC = {"wait_stream", "synchronize", "wait_event", "record_stream"}
_GRAPH_CALLS = {"torch.cuda.graph", "torch.cuda.CUDAGraph", "torch.cuda.make_graphed_callables",
                "torch.cuda.graphs.graph", "torch.cuda.graphs.CUDAGraph"}

# Rationale: tensors or pickles loaded at run time can be precomputed answers; grader files and
# /proc expose the harness. Kernel sources (.cu, .py, ...) are what submissions legitimately read.
_SOURCE_EXT = (".cu", ".cuh", ".cpp", ".cc", ".c", ".h", ".hpp", ".py", ".ptx", ".cubin", ".so", ".txt",
               ".json", ".yaml", ".yml", ".toml")
_DATA_EXT = (".pt", ".pth", ".npy", ".npz", ".pkl", ".pickle", ".safetensors", ".bin", ".h5")
_GRADER_WORDS = ("expected", "answer", "golden", "reference", "result", "/proc/", "/dev/fd", "xfer", "task.yml")
_LOADERS = {"torch.load", "numpy.load", "pickle.load", "pickle.loads", "joblib.load", "numpy.fromfile",
            "safetensors.torch.load_file", "torch.from_file"}
_OPENERS = {"open", "io.open", "builtins.open", "codecs.open", "os.open"}
_PATH_READS = {"read_text", "read_bytes"}

_LOW_PRECISION = {"float16": "float16", "half": "float16", "bfloat16": "bfloat16", "float8_e4m3fn": "float8",
                  "float8_e5m2": "float8", "float8e4nv": "float8", "float8e5": "float8", "fp8e4nv": "float8",
                  "fp8e5": "float8", "float8_e4m3fnuz": "float8", "float8_e5m2fnuz": "float8"}
_TF32_FLAGS = {"allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"}

_CPP_CALL = re.compile(r"\b(?:torch|at)::(?:native::)?([A-Za-z_]\w*)\s*\(")


@dataclass
class ScanHit:
    """One pattern the scan matched at a source line (a review's findings are ``reviewer.core.models.Finding``)."""

    category: str
    defect: str
    severity: str
    """``fail`` (the source alone shows the hack) or ``info`` (a fact the runtime tool weighs)."""
    message: str
    file: str
    line: int
    end_line: int
    quote: str
    context: str = "unconditional"
    gate: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def plain(self) -> str:
        where = f"{self.file}:{self.line}"
        guard = "" if self.context in ("unconditional", "module") or not self.gate else f" (only when `{self.gate}`)"
        return f"{self.message}{guard} at {where}"


@dataclass
class Scan:
    findings: list[ScanHit] = field(default_factory=list)
    reference_families: dict[str, str] = field(default_factory=dict)
    """family -> how the reference spells it (``torch.softmax``)."""
    files: list[str] = field(default_factory=list)
    lines: int = 0
    kernels: list[str] = field(default_factory=list)
    parse_errors: list[str] = field(default_factory=list)

    def by_category(self, category: str) -> list[ScanHit]:
        return [f for f in self.findings if f.category == category]


@dataclass(frozen=True)
class ScanFact:
    """The static tool's scan, left for the runtime tool (both of this plugin) so it is read once."""
    scan: Scan


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _family_of_target(target: str) -> str | None:
    last = target.rsplit(".", 1)[-1]
    if target == "@":
        return "matmul"
    if not last or last in _METADATA or last in _GENERIC or last.startswith("__"):
        return None
    if target.startswith("torch.nn.") and last[:1].isupper():  # nn.Linear, nn.Softmax, nn.Conv2d
        last = re.sub(r"_?\d+d$", "", _snake(last))
    family = base_name(last)
    if kind_of(last) != "compute" and kind_of(family) != "compute":
        return None
    return family


def _torchish(target: str) -> bool:
    return target == "@" or target.startswith(("torch.", ".", "numpy."))


def _foreign_operator(target: str) -> bool:
    """``torch.ops.<namespace>.<op>`` outside torch's own namespaces: its name is its author's choice (a kernel
    registered as ``mylib::softmax``); the runtime traces what its kernel runs (torch_ops.open_library_kernels)."""
    parts = target.split(".")
    return parts[:2] == ["torch", "ops"] and len(parts) > 3 and parts[2] not in TORCH_NAMESPACES


def _module_attrs(src: S.SourceFile) -> dict[str, str]:
    """``self.fc = nn.Linear(...)`` -> {"self.fc": "torch.nn.Linear"} across the file's classes."""
    out: dict[str, str] = {}
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            ctor = S.dotted(src, node.value.func) or ""
            if ctor.startswith("torch.nn.") and ctor.rsplit(".", 1)[-1][:1].isupper():
                for t in node.targets:
                    name = S.dotted(src, t)
                    if name and name.startswith("self."):
                        out[name] = ctor
    return out


def reference_compute(ref: S.SourceFile, wanted: list[str]) -> dict[str, tuple[str, str | None]]:
    """The reference's functions that compute the answer (``wanted``: the manifest entry, ``Model``'s
    methods / ``ref_kernel`` (``SubmissionFormat.reference_names``), and what they call), not its input
    generators."""
    entries = [e for e in wanted if e in ref.functions or e in ref.classes]
    return S.reachable_functions(ref, entries or list(ref.functions))


def reference_families(ref: S.SourceFile, wanted: list[str]) -> dict[str, str]:
    """The operator families the reference's computation calls (glue excluded)."""
    reach = reference_compute(ref, wanted)
    mods = _module_attrs(ref)
    fams: dict[str, str] = {}
    for site in S.call_sites(ref, reach):
        if site.context == "module" or site.function is None:
            continue
        target = mods.get(site.target, site.target)
        if not _torchish(target):
            continue
        if _foreign_operator(target):
            continue
        fam = _family_of_target(target)
        if fam:
            fams.setdefault(fam, target if target != "@" else "a @ b")
    return fams


def _finding(src: S.SourceFile, node: ast.AST, category: str, defect: str, severity: str, message: str,
             context: str = "unconditional", gate: str | None = None, **detail: Any) -> ScanHit:
    line = getattr(node, "lineno", 1)
    end = getattr(node, "end_lineno", None) or line
    lines = src.lines()
    end = min(end, line + 4, len(lines))
    return ScanHit(category=category, defect=defect, severity=severity, message=message, file=src.name,
                   line=line, end_line=end, quote="\n".join(lines[line - 1:end]), context=context, gate=gate,
                   detail=detail)


# -- the scans -------------------------------------------------------------------------------

def _scan_library(src: S.SourceFile, scan: Scan, reach: dict[str, tuple[str, str | None]]) -> None:
    mods = _module_attrs(src)
    for site in S.call_sites(src, reach):
        target = mods.get(site.target, site.target)
        if not _torchish(target):
            continue
        if _foreign_operator(target):
            continue
        fam = _family_of_target(target)
        if fam is None or fam not in scan.reference_families:
            continue
        shown = "the @ operator" if target == "@" else target.replace("torch.nn.functional.", "F.")
        if site.target in mods:
            shown = f"{site.target} (a {target.replace('torch.nn.', 'nn.')} module)"
        message = (f"calls {shown}, the reference's own operator ({scan.reference_families[fam]})"
                   + (" in an exception fallback" if site.context == "fallback" else ""))
        # Rationale: a fallback in ``except`` hides a failing kernel behind a correct library answer,
        # and the runtime never sees it when the kernel works here.
        severity = "fail" if site.context == "fallback" else "info"
        scan.findings.append(_finding(src, site.node, "library", "library_call", severity, message,
                                      site.context, site.gate, family=fam, target=target,
                                      function=site.function))


def _scan_reuse(src: S.SourceFile, scan: Scan, ref_stem: str, ref_names: set[str],
                reach: dict[str, tuple[str, str | None]]) -> None:
    imported: set[str] = set()
    for node in ast.walk(src.tree):
        if S.in_main_block(src, node):
            continue
        mod = None
        if isinstance(node, ast.ImportFrom) and node.module:
            mod = node.module
            names = [a.asname or a.name for a in node.names]
        elif isinstance(node, ast.Import):
            hits = [a for a in node.names if a.name.split(".")[0] == ref_stem]
            if hits:
                mod, names = ref_stem, [a.asname or a.name for a in hits]
        if mod is not None and mod.split(".")[0] == ref_stem:
            imported.update(names)
            scan.findings.append(_finding(src, node, "reference_reuse", "imports_reference", "fail",
                                          f"imports the reference module {ref_stem!r} ({', '.join(names)})"))
    for name, cls in src.classes.items():
        for base in cls.bases:
            b = S.dotted(src, base) or ""
            if b.split(".")[-1] in ref_names and (b.startswith(ref_stem + ".") or b in imported):
                scan.findings.append(_finding(src, cls, "reference_reuse", "inherits_reference", "fail",
                                              f"class {name} inherits the reference's {b.split('.')[-1]}"))
    for site in S.call_sites(src, reach):
        last = site.target.rsplit(".", 1)[-1]
        if site.target.startswith(ref_stem + ".") or (site.target in imported and last in ref_names):
            scan.findings.append(_finding(src, site.node, "reference_reuse", "calls_reference", "fail",
                                          f"calls the reference's {last}", site.context, site.gate))
        elif site.target in ("torch.compile", "torch.jit.script", "torch.jit.trace"):
            node = site.node
            first = node.args[0] if isinstance(node, ast.Call) and node.args else None
            if isinstance(first, ast.Call):  # torch.compile(Model()) compiles an instance
                first = first.func
            arg = (S.dotted(src, first) or ast.unparse(first)) if first is not None else "..."
            ref_arg = arg.split(".")[-1] in ref_names and (arg in imported or arg.startswith(ref_stem + "."))
            ref_arg = ref_arg or arg.startswith("super")
            # Rationale: compiling the reference makes Inductor, not the submission, write the kernel.
            scan.findings.append(_finding(
                src, node, "reference_reuse", "compiles_reference" if ref_arg else "torch_compile",
                "fail" if ref_arg else "info",
                f"{site.target}({arg}) " + ("compiles the reference itself" if ref_arg else
                                            "lets the PyTorch compiler generate the kernels"),
                site.context, site.gate))


def _is_module_root(src: S.SourceFile, expr: ast.AST) -> str | None:
    """The dotted name if ``expr`` is an attribute of an imported module (``torch.allclose``)."""
    if not isinstance(expr, ast.Attribute):
        return None
    node: ast.AST = expr
    while isinstance(node, ast.Attribute):
        node = node.value
    if isinstance(node, ast.Name) and node.id in src.aliases:
        return S.dotted(src, expr)
    if isinstance(node, ast.Name) and node.id in ("builtins", "__builtins__"):
        return S.dotted(src, expr)
    return None


def _scan_assignments(src: S.SourceFile, scan: Scan) -> None:
    for node in ast.walk(src.tree):
        if S.in_main_block(src, node):
            continue
        targets: list[ast.AST] = []
        value: ast.AST | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        for t in targets:
            name = _is_module_root(src, t)
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == "__builtins__":
                name = "__builtins__[...]"
            if name is None:
                continue
            last = name.rsplit(".", 1)[-1]
            if last in _TF32_FLAGS or "float32_matmul_precision" in name:
                if isinstance(value, ast.Constant) and value.value is True:
                    scan.findings.append(_finding(src, node, "precision", "tf32", "info",
                                                  f"sets {name} = True (TF32 matmuls)", fmt="tf32"))
                continue
            if name.startswith("os.environ"):
                continue
            # Rationale: a constant assigned to a library attribute is configuration
            # (cudnn.benchmark = True); anything else replaces behaviour the harness may rely on.
            if isinstance(value, ast.Constant):
                continue
            scan.findings.append(_finding(src, node, "harness", "monkeypatch", "fail",
                                          f"replaces {name} at run time (monkeypatching)"))
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and not S.in_main_block(src, node):
            fn = S.dotted(src, node.func)
            if fn in ("setattr", "builtins.setattr", "delattr") and node.args:
                root = S.dotted(src, node.args[0]) or ""
                if root.split(".")[0] in set(src.aliases.values()) | {"builtins"} and not root.startswith("."):
                    what = ast.unparse(node.args[1]) if len(node.args) > 1 else "?"
                    scan.findings.append(_finding(src, node, "harness", "monkeypatch", "fail",
                                                  f"{fn}({root}, {what}, ...) replaces a library attribute"))


def _used_as_key(src: S.SourceFile, node: ast.AST) -> bool:
    """Whether the value of ``node`` ends up as a dict key, a membership test or a comparison."""
    child, cur = node, src.parents.get(node)
    while cur is not None:
        if isinstance(cur, ast.Subscript) and child is cur.slice:
            return True
        if isinstance(cur, ast.Dict) and any(child is k for k in cur.keys):
            return True
        if isinstance(cur, ast.Compare):
            return True
        if isinstance(cur, ast.Call) and isinstance(cur.func, ast.Attribute) and cur.func.attr in (
                "get", "setdefault", "pop", "__contains__", "add") and cur.args and child is cur.args[0]:
            return True
        if isinstance(cur, ast.Assign):
            names = {t.id for t in cur.targets if isinstance(t, ast.Name)}
            scope = src.parents.get(cur)
            while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                scope = src.parents.get(scope)
            if names and scope is not None:
                return any(_used_as_key(src, n) for n in ast.walk(scope)
                           if isinstance(n, ast.Name) and n.id in names and isinstance(n.ctx, ast.Load))
            return False
        # Rationale: arithmetic on an address (``x.data_ptr() % 16``) is an alignment check, not a key.
        if isinstance(cur, (ast.stmt, ast.Lambda, ast.BinOp, ast.UnaryOp)):
            return False
        child, cur = cur, src.parents.get(cur)
    return False


_CONTENT = (".sum(", ".item(", ".tolist(", ".tobytes(", ".numpy(", ".cpu(", ".mean(")


def _key_kind(target: str, node: ast.Call) -> str | None:
    """``identity`` for id(x), ``address`` for x.data_ptr(), ``content hash`` for hashes of values."""
    last = target.rsplit(".", 1)[-1]
    if target in ("id", "builtins.id"):
        return "identity"
    if last == "data_ptr" and target.startswith("."):
        return "address"
    if last == "tobytes" or target.startswith("hashlib."):
        return "content hash"
    # Rationale: hash() of sizes keys a legitimate config cache; hash() of values keys an answer cache.
    if target in ("hash", "builtins.hash") and any(c in ast.unparse(node) for c in _CONTENT):
        return "content hash"
    return None


_LISTING = {"os.listdir", "os.scandir", "os.walk", "glob.glob", "glob.iglob"}


def _own_folder(src: S.SourceFile, node: ast.Call) -> bool:
    """Whether a listing call's argument is the submission's own folder: an expression built from
    ``__file__`` directly or through a module-level name assigned from one."""
    if not node.args:
        return False
    own = {t.id for stmt in src.tree.body if isinstance(stmt, ast.Assign) and "__file__" in ast.unparse(stmt.value)
           for t in stmt.targets if isinstance(t, ast.Name)}
    arg = node.args[0]
    names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    text = ast.unparse(arg)
    # Rationale: a path that also takes a parent (.., dirname of dirname) climbs out of the folder.
    if ".." in text or text.count("dirname") > 1 or ".parent.parent" in text:
        return False
    return "__file__" in text or bool(names & own)


def _scan_calls(src: S.SourceFile, scan: Scan, ref_file: str, reach: dict[str, tuple[str, str | None]]) -> None:
    sites = S.call_sites(src, None)
    sync_functions = {s.function for s in sites if s.target.rsplit(".", 1)[-1] in _STREAM_SYNC}
    for site in sites:
        node, target = site.node, site.target
        if not isinstance(node, ast.Call):
            continue
        last = target.rsplit(".", 1)[-1]
        ctx = (site.context, site.gate)
        if target in _LISTING and _own_folder(src, node):
            scan.findings.append(_finding(src, node, "harness", "lists_own_folder", "info",
                                          f"{target}(): lists the submission's own folder (derived from "
                                          "__file__); what it then opens is checked at run time", *ctx))
        elif target in _HARNESS_CALLS or any(target.startswith(p) for p in _HARNESS_PREFIXES):
            what = _HARNESS_CALLS.get(target) or next(v for p, v in _HARNESS_PREFIXES.items() if target.startswith(p))
            severity = "info" if target.startswith("subprocess.") else "fail"
            scan.findings.append(_finding(src, node, "harness", "harness_access", severity,
                                          f"{target}(): {what}", *ctx))
        elif target.startswith(("torch._C.TensorBase.", "torch._C._TensorBase.")):
            scan.findings.append(_finding(src, node, "harness", "harness_access", "fail",
                                          f"{target}(): calls a tensor method on torch's C base class, past the "
                                          "methods the withheld run answers (tools/engine/harness/"
                                          "withheld_exports.py)", *ctx))
        elif last in _NATIVE_THREADS:
            scan.findings.append(_finding(src, node, "harness", "harness_access", "fail",
                                          f"{target}(): {_NATIVE_THREADS[last]}, on which no operator trace or "
                                          "withheld copy follows the work", *ctx))
        elif target in _RAW_MEMORY or last == "from_address" or (target == "ctypes.cast" and any(
                isinstance(a, ast.Call) and (S.dotted(src, a.func) or "").endswith("POINTER") for a in node.args)):
            what = _RAW_MEMORY.get(target, "maps memory at an address as a ctypes object" if last == "from_address"
                                   else "casts an address to a pointer to read or write through")
            scan.findings.append(_finding(src, node, "harness", "raw_memory_access", "fail",
                                          f"{target}(): {what}: tensor data read or written behind torch's back, "
                                          "where neither the operator trace nor the withheld run sees it", *ctx))
        elif last in ("to_dlpack", "_to_dlpack") and not target.startswith("."):
            scan.findings.append(_finding(src, node, "harness", "dlpack_handoff", "info",
                                          f"{target}(): hands the tensor's memory to another library through "
                                          "DLPack; work done there is seen by neither the operator trace nor the "
                                          "withheld run's poisoned copies (a C function with no torch-function "
                                          "hook)", *ctx))
        elif any(p in target for p in _TRACE_BLINDS):
            scan.findings.append(_finding(src, node, "harness", "harness_access", "fail",
                                          f"{target}(): switches off the operator trace for the code it wraps", *ctx))
        elif any(p in target for p in _TRACE_PROBES) and not target.startswith("."):
            scan.findings.append(_finding(src, node, "harness", "harness_access", "fail",
                                          f"{target}(): probes whether it is being traced or profiled", *ctx))
        elif target.startswith(".") and last in _SEED_METHODS:
            scan.findings.append(_finding(src, node, "harness", "harness_access", "fail",
                                          f"{ast.unparse(node.func)}(): reads the RNG seed or state", *ctx))
        elif target in _DEFERRED_CALLS or any(target.startswith(p) for p in _DEFERRED_PREFIXES):
            what = _DEFERRED_CALLS.get(target) or next(v for p, v in _DEFERRED_PREFIXES.items() if target.startswith(p))
            synced = "stream" in what.lower() and site.function in sync_functions
            message = f"{target}(): {what}" + (" (synchronized in the same function)" if synced else
                                                " whose work the harness's timing does not wait for")
            scan.findings.append(_finding(src, node, "deferred", "side_work", "info" if synced else "fail",
                                          message, *ctx))
        elif target in _GRAPH_CALLS:
            scan.findings.append(_finding(src, node, "deferred", "cuda_graph", "info",
                                          f"{target}(): replays a captured CUDA graph (outputs must still "
                                          "track new inputs; checked by the runtime probe)", *ctx))
        elif _key_kind(target, node) is not None:
            kind = _key_kind(target, node)
            if _used_as_key(src, node):
                scan.findings.append(_finding(src, node, "caching", "cache_key", "fail",
                                              f"keys a lookup on the tensor's {kind} ({ast.unparse(node)}): "
                                              "a cache that can replay an earlier output", *ctx))
            elif kind != "address":
                scan.findings.append(_finding(src, node, "caching", "cache_key", "info",
                                              f"takes the {kind} of a value ({ast.unparse(node)})", *ctx))
        elif target in _LOADERS or target in _OPENERS or last in _PATH_READS:
            _file_access(src, scan, node, target, ref_file, ctx)
        elif target in ("os.getenv", "os.environ.get") or (target.startswith("os.environ.") and last in (
                "items", "keys", "values", "copy")):
            enumerates = last in ("items", "keys", "values", "copy")
            arg = ast.unparse(node.args[0]) if node.args else ""
            scan.findings.append(_finding(
                src, node, "environment", "reads_environment", "fail" if enumerates else "info",
                "enumerates the process environment" if enumerates else f"reads the environment variable {arg}",
                *ctx))
        elif last in ("half", "bfloat16") and target.startswith(".") and not node.args:
            fmt = "float16" if last == "half" else "bfloat16"
            scan.findings.append(_finding(src, node, "precision", fmt, "info",
                                          f"casts to {fmt} ({ast.unparse(node)})", *ctx, fmt=fmt))
        elif target in ("torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast"):
            scan.findings.append(_finding(src, node, "precision", "autocast", "info",
                                          f"{target}(...) runs operators in reduced precision", *ctx, fmt="float16"))
        elif target == "torch.set_float32_matmul_precision":
            arg = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
            if arg in ("high", "medium"):
                scan.findings.append(_finding(src, node, "precision", "tf32", "info",
                                              f"torch.set_float32_matmul_precision({arg!r}) allows TF32/bf16 "
                                              "matmuls", *ctx, fmt="tf32"))
        _scan_low_precision_args(src, scan, node, ctx)
    for node in ast.walk(src.tree):
        mod = node.module if isinstance(node, ast.ImportFrom) else (
            node.names[0].name if isinstance(node, ast.Import) else None)
        if mod and mod.startswith(_HARNESS_MODULES):
            scan.findings.append(_finding(src, node, "harness", "harness_access", "fail",
                                          f"imports the reviewer's own module {mod}", module=mod))
        if isinstance(node, ast.Attribute) and node.attr in _FRAME_ATTRS and not S.in_main_block(src, node):
            scan.findings.append(_finding(src, node, "harness", "harness_access", "fail",
                                          f"reads frame attribute .{node.attr} (walks the caller's frames)"))
        elif isinstance(node, ast.Attribute) and node.attr in _FUNCTION_INTERNALS \
                and not S.in_main_block(src, node):
            scan.findings.append(_finding(src, node, "harness", "harness_access", "fail",
                                          f"reads .{node.attr} (a function's hidden state, where wrappers keep "
                                          "what they wrap)"))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and (
                S.dotted(src, node.value) or "") == "os.environ" and not S.in_main_block(src, node):
            scan.findings.append(_finding(src, node, "environment", "reads_environment", "info",
                                          f"reads the environment variable {ast.unparse(node.slice)}"))
        elif isinstance(node, ast.For) and (S.dotted(src, node.iter) or "") == "os.environ":
            scan.findings.append(_finding(src, node, "environment", "reads_environment", "fail",
                                          "enumerates the process environment"))
        elif isinstance(node, ast.FunctionDef) and node.name == "__del__":
            scan.findings.append(_finding(src, node, "deferred", "side_work", "info",
                                          "defines __del__: work deferred to garbage collection"))


def _scan_state(src: S.SourceFile, scan: Scan, reach: dict[str, tuple[str, str | None]] | None) -> None:
    """State the call path writes (``reach``: the entry's reachable functions, None for a helper file)."""
    for w in state_concerns(src):
        if reach and w.function not in reach and w.kind != "lru_cache":
            continue
        scan.findings.append(_finding(src, w.node, "state", "module_state", "info", w.plain(),
                                      kind=w.kind, name=w.name, function=w.function))


def _scan_low_precision_args(src: S.SourceFile, scan: Scan, node: ast.Call, ctx: tuple[str, str | None]) -> None:
    """``x.to(torch.float16)``, ``dtype=torch.bfloat16``, ``y.to(tl.float16)`` in a kernel."""
    values = [kw.value for kw in node.keywords if kw.arg in ("dtype",)]
    if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
        values += list(node.args[:1])
    for v in values:
        name = S.dotted(src, v) or (v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "")
        fmt = _LOW_PRECISION.get(str(name).rsplit(".", 1)[-1])
        if fmt:
            where = "inside a kernel" if S.in_kernel(src, node) else ""
            scan.findings.append(_finding(src, node, "precision", fmt, "info",
                                          f"casts to {fmt} {where}({ast.unparse(node)})".replace("  ", " "),
                                          *ctx, fmt=fmt, in_kernel=S.in_kernel(src, node)))


def _file_access(src: S.SourceFile, scan: Scan, node: ast.Call, target: str, ref_file: str,
                 ctx: tuple[str, str | None]) -> None:
    consts = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    text = " ".join(consts).lower()
    ref_hit = ref_file.lower() in text or Path(ref_file).stem.lower() in text
    if target in _LOADERS:
        scan.findings.append(_finding(src, node, "harness", "loads_data", "fail",
                                      f"{target}(...) loads stored tensors or objects at run time "
                                      "(a precomputed answer?)", *ctx))
    elif ref_hit or any(w in text for w in _GRADER_WORDS) or text.endswith(_DATA_EXT) or any(
            c.lower().endswith(_DATA_EXT) for c in consts):
        scan.findings.append(_finding(src, node, "harness", "reads_grader_files", "fail",
                                      f"opens {consts[0] if consts else 'a computed path'!r}: the reference, "
                                      "stored data or harness files", *ctx))
    elif not any(c.lower().endswith(_SOURCE_EXT) for c in consts):
        scan.findings.append(_finding(src, node, "harness", "reads_files", "info",
                                      f"opens a file at run time ({ast.unparse(node)[:80]})", *ctx))


def _scan_kernels(src: S.SourceFile, scan: Scan) -> None:
    for kernel in src.kernels:
        scan.kernels.append(kernel.name)
        for node in ast.walk(kernel):
            if not isinstance(node, ast.Call):
                continue
            _scan_low_precision_args(src, scan, node, ("unconditional", None))
            target = S.dotted(src, node.func) or ""
            if target.rsplit(".", 1)[-1] not in ("dot", "dot_scaled") or not target.startswith("triton."):
                continue
            kws = {kw.arg: kw.value for kw in node.keywords}
            prec = kws.get("input_precision")
            allow = kws.get("allow_tf32")
            prec_v = prec.value if isinstance(prec, ast.Constant) else (None if prec is None else "dynamic")
            allow_v = allow.value if isinstance(allow, ast.Constant) else None
            if prec_v in ("tf32",) or (prec is None and allow_v is True):
                msg, fmt = f"tl.dot in {kernel.name} asks for TF32 inputs ({ast.unparse(node)})", "tf32"
            elif prec is None and allow is None:
                msg, fmt = (f"tl.dot in {kernel.name} uses the default input_precision, which is TF32 for "
                            f"fp32 operands on NVIDIA GPUs ({ast.unparse(node)})"), "tf32_default"
            else:
                continue
            scan.findings.append(_finding(src, node, "precision", fmt, "info", msg, fmt="tf32", kernel=kernel.name,
                                          default=fmt == "tf32_default"))


def _scan_cpp(name: str, text: str, first_line: int, scan: Scan, quote_src: S.SourceFile | None) -> None:
    for m in _CPP_CALL.finditer(text):
        fam = _family_of_target("torch." + m.group(1))
        if fam is None or fam not in scan.reference_families:
            continue
        line = first_line + text.count("\n", 0, m.start())
        lines = (quote_src.lines() if quote_src else text.splitlines())
        idx = line - 1 if quote_src else line - first_line
        quote = lines[idx] if 0 <= idx < len(lines) else m.group(0)
        scan.findings.append(ScanHit(category="library", defect="library_call", severity="info",
                                     message=f"C++ source calls {m.group(0).rstrip('(').strip()}, the reference's "
                                             f"own operator ({scan.reference_families[fam]})",
                                     file=name, line=line, end_line=line, quote=quote.strip(),
                                     detail={"family": fam, "target": m.group(0), "cpp": True}))


def scan_submission(sub: Submission, source: SourceView | None = None) -> Scan:
    """Scan the submission's own files against its reference (read through ``source``, the
    review's parsed view, when given)."""
    view = source if source is not None else SourceView(sub)
    scan = Scan()
    ref_src = source_file(sub.reference_file, view.file(sub.reference_file))
    fmt = format_of(sub)
    ref_wanted = [e for e in [sub.entries.get("reference")] if e] + list(fmt.reference_names)
    if ref_src is not None:
        scan.reference_families = reference_families(ref_src, ref_wanted)
        ref_names = {n.split(".")[0] for n in reference_compute(ref_src, ref_wanted)}
    else:
        scan.parse_errors.append(sub.reference_file)
        ref_names = set()
    shared = {sub.reference_file, sub.inputs_file, "task.py", "utils.py", "eval.py"}
    own = [f for f in sub.source_files if f not in shared]
    if sub.submission_file not in own:
        own.insert(0, sub.submission_file)
    # Rationale: a helper package the submission ships runs in the child as much as its top-level files
    # do, so a tamperer could hide there; its Python files are scanned too.
    package_files = _package_files(sub.root_path)
    own += [f for f in package_files[:_MAX_PACKAGE_FILES] if f not in own]
    ref_stem = Path(sub.reference_file).stem
    for name in own:
        text = view.file(name)
        scan.files.append(name)
        scan.lines += text.count("\n") + 1
        if not name.endswith(".py"):
            _scan_cpp(name, text, 1, scan, None)
            continue
        src = source_file(name, text)
        if src is None:
            scan.parse_errors.append(name)
            continue
        is_main = name == sub.submission_file
        entries = S.entry_points(src, [e for e in [sub.entries.get("submission")] if e] + list(fmt.submission_names)) \
            if is_main else list(src.functions)
        reach = S.reachable_functions(src, entries)
        if is_main:
            _scan_library(src, scan, reach)
        _scan_reuse(src, scan, ref_stem, ref_names, reach)
        _scan_assignments(src, scan)
        _scan_calls(src, scan, sub.reference_file, reach)
        _scan_kernels(src, scan)
        _scan_state(src, scan, reach if is_main else None)
        for node in ast.walk(src.tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 40 \
                    and ("::" in node.value):
                _scan_cpp(name, node.value, node.lineno, scan, src)
    # Rationale: a top-level name the submission ships itself (its own tools/ or reviewer/) is its own
    # module in the child (tools/engine/sandbox/own_modules.py), not the reviewer's: importing it is no
    # access to the harness.
    shipped = {Path(f).stem for f in sub.source_files if f.endswith(".py")} | {f.split("/")[0] for f in package_files}
    scan.findings = [f for f in scan.findings
                     if not (f.defect == "harness_access" and str(f.detail.get("module", "")).split(".")[0] in shipped)]
    return scan


_MAX_PACKAGE_FILES = 200


def _package_files(root: Path) -> list[str]:
    """Python files in the submission's sub-folders (its helper packages), relative and sorted; the
    scan reads the first ``_MAX_PACKAGE_FILES``, and their top folders are names the submission ships."""
    return sorted(p.relative_to(root).as_posix() for d in root.iterdir()
                  if d.is_dir() and not d.name.startswith((".", "__pycache__"))
                  for p in d.rglob("*.py") if "__pycache__" not in p.parts and p.is_file())
