"""Reading a submission directory: detect its format, find its files, parse what it claims.

Nothing here executes submission code; files are only read and parsed.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import yaml
from pydantic import ValidationError

from reviewer.core.config import FORMATS
from reviewer.core.errors import IngestError, ManifestError, UnsafeSubmissionFile
from reviewer.ingest.pysource import PyFacts, call_keywords, read_facts
from reviewer.core.submission import Manifest, ManifestEntry, NominalCase, Submission, Target

LOOKED_FOR = (
    "KernelBench: a reference .py defining Model, get_inputs and get_init_inputs, and submission.py "
    "defining ModelNew; GPU MODE: reference.py defining generate_input and ref_kernel, submission.py "
    "defining custom_kernel, and task.yml with tests:; or a kreview.toml manifest with [submission] "
    "and [reference] tables"
)
# folders never read nor copied into the sandbox (tools/engine/session.py:_copy_tree skips the same)
SKIPPED_DIRS = frozenset({".git", ".kreview", "__pycache__", ".venv", "node_modules"})
# Rationale: the reviewer reads sources and manifests whole; a kernel source is kilobytes, so a file
# the size of a dataset is not a source, and reading it must not exhaust the reviewer's memory.
MAX_READ_BYTES = 4 * 2**20
_MANIFEST_SUFFIXES = frozenset({".toml", ".yml", ".yaml"})
# Rationale: compiled code the reviewer cannot read: a sourceless .pyc imports like a module, a shared
# library loads like one, and neither shows what it does to static reading (or to a human reviewer)
_BINARY_SUFFIXES = frozenset({".pyc", ".pyo", ".pyd", ".so", ".dylib", ".dll", ".o", ".a", ".cubin", ".fatbin",
                              ".hsaco", ".exe"})
_BINARY_MAGIC = (b"\x7fELF", b"MZ", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
# Rationale: no kernel submission is deeper than this; tools walking the tree recursively (copytree)
# would otherwise end in a RecursionError instead of a clear refusal
MAX_DEPTH = 32


def source_suffixes() -> frozenset[str]:
    """Python, and the source suffixes every registered backend declares (``Backend.source_suffixes``)."""
    from tools.engine.registry import source_suffixes as backend_suffixes

    return frozenset({".py"}) | backend_suffixes()


def check_tree(root: Path) -> None:
    """Refuse a submission directory holding anything but plain files and folders (a symlink to
    /dev/zero or to a file outside, a FIFO, a device, a socket) or a source file too large to read.
    git stores symlinks, so a pull request can bring one."""
    read_suffixes = source_suffixes() | _MANIFEST_SUFFIXES
    # the directory's own name becomes the submission's name in every report
    _check_name(Path(os.path.abspath(root)).name, Path(os.path.abspath(root)).name)
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(folder.iterdir())
        except OSError as exc:
            raise UnsafeSubmissionFile(f"{folder}: cannot be listed: {exc.strerror}") from exc
        for p in entries:
            rel = p.relative_to(root)
            _check_name(p.name, rel)
            if p.is_symlink():
                raise UnsafeSubmissionFile(f"{rel} is a symbolic link (to {os.readlink(p)!r}); a submission must hold "
                                           "plain files only", hint="replace the link by the file it points to")
            if p.is_dir():
                if p.name not in SKIPPED_DIRS:
                    if depth + 1 >= MAX_DEPTH:
                        raise UnsafeSubmissionFile(f"{rel}: folders nested deeper than {MAX_DEPTH} levels; a "
                                                   "submission is a few files, not a deep tree")
                    stack.append((p, depth + 1))
                continue
            if not p.is_file():
                raise UnsafeSubmissionFile(f"{rel} is not a regular file (a FIFO, device or socket); a submission "
                                           "must hold plain files only")
            st = p.stat()
            if st.st_nlink > 1:
                # Rationale: a hard link is a second name of a file elsewhere (a host secret): it is
                # copied into the sandbox like the submission's own, so it is refused like a symlink
                raise UnsafeSubmissionFile(f"{rel} is a hard link ({st.st_nlink} names for the same file); a "
                                           "submission must hold plain files only",
                                           hint="copy the file instead of linking it (cp, not ln)")
            if p.suffix in read_suffixes and st.st_size > MAX_READ_BYTES:
                raise UnsafeSubmissionFile(f"{rel} is {st.st_size} bytes; source and manifest files are read "
                                           f"whole and may be at most {MAX_READ_BYTES} bytes")
            _check_not_binary(p, rel)


def _check_name(name: str, rel: Path | str) -> None:
    """A name every output format can carry: valid UTF-8, no control characters (a newline in a
    file name would break line-based reports, invalid UTF-8 the JSON of the review)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise UnsafeSubmissionFile(f"{ascii(str(rel))}: a file name that is not valid UTF-8; rename it") from None
    if any(ord(c) < 0x20 or ord(c) == 0x7F or 0x80 <= ord(c) < 0xA0 for c in name):
        raise UnsafeSubmissionFile(f"{ascii(str(rel))}: a file name with a control character (newline, tab, "
                                   "escape); rename it")


def _check_not_binary(p: Path, rel: Path) -> None:
    suffixes = {s.lower() for s in p.suffixes}
    binary = bool(suffixes & _BINARY_SUFFIXES)
    if not binary:
        try:
            with p.open("rb") as fh:
                head = fh.read(4)
        except OSError as exc:
            raise UnsafeSubmissionFile(f"{rel}: cannot be read: {exc.strerror}") from exc
        # compiled Python carries a version magic whose last two bytes are \r\n
        binary = head.startswith(_BINARY_MAGIC) or (len(head) == 4 and head[2:] == b"\r\n"
                                                    and 2900 <= int.from_bytes(head[:2], "little") < 4000)
    if binary:
        raise UnsafeSubmissionFile(f"{rel} is compiled code (bytecode or a binary); the reviewer reads sources only "
                                   "and will not run what it cannot read",
                                   hint="ship the source instead (a .py, .cu, .cpp file), or leave the file out")


def _confined(root: Path, rel: str, what: str) -> str:
    """A manifest path: relative, inside the submission directory, no '..'."""
    pure = Path(rel)
    if pure.is_absolute() or ".." in pure.parts or not rel.strip():
        raise ManifestError(f"{root}/kreview.toml: {what} {rel!r} must be a relative path inside the submission "
                            "directory (no absolute path, no '..')")
    return rel


def _read_manifest(root: Path) -> Manifest | None:
    path = root / "kreview.toml"
    if not path.exists():
        return None
    try:
        data = tomllib.loads(path.read_text())
        return Manifest.model_validate(data)
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise ManifestError(f"{path} is not a valid kreview manifest:\n{exc}") from exc


def _python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.suffix == ".py" and p.is_file())


def _facts(root: Path) -> dict[str, PyFacts]:
    return {p.name: read_facts(p) for p in _python_files(root)}


def _pick_reference(facts: dict[str, PyFacts], needs: tuple[str, ...], classes: tuple[str, ...] = ()) -> str | None:
    def ok(f: PyFacts) -> bool:
        return f.tree is not None and all(n in f.functions for n in needs) and all(c in f.classes for c in classes)

    if "reference.py" in facts and ok(facts["reference.py"]):
        return "reference.py"
    hits = [name for name, f in facts.items() if ok(f) and name != "submission.py"]
    return hits[0] if len(hits) == 1 else None


def _pick_submission(root: Path, reference: str, marker: str) -> str | None:
    if (root / "submission.py").exists():
        return "submission.py"
    hits = [p.name for p in _python_files(root)
            if p.name != reference and re.search(marker, p.read_text(errors="replace"))]
    return hits[0] if len(hits) == 1 else None


def _detect_framework(root: Path, submission_file: str) -> tuple[str, list[str]]:
    from tools.engine.registry import backends

    text = (root / submission_file).read_text(errors="replace")
    files = sorted(p.name for p in root.iterdir() if p.is_file())
    scores = []
    for name, backend in backends().items():
        hits = backend.detect(text, files)
        if hits:
            scores.append((backend.priority, hits, name))
    if not scores:
        return "unknown", []
    scores.sort(reverse=True)
    return scores[0][2], sorted(s[2] for s in scores)


def _kernelbench(root: Path, facts: dict[str, PyFacts], task_only: bool = False) -> Submission | None:
    ref = _pick_reference(facts, ("get_inputs", "get_init_inputs"), ("Model",))
    if ref is None:
        return None
    sub = _pick_submission(root, ref, r"class\s+ModelNew\b") or (ref if task_only else None)
    if sub is None:
        raise IngestError(f"{root}: found the KernelBench reference {ref} but no submission.py "
                          "(or a single other .py defining class ModelNew)")
    return Submission(root=str(root), name=root.name, format="kernelbench", framework="unknown",
                      reference_file=ref, submission_file=sub, entries={"submission": "ModelNew"},
                      nominal_cases=[NominalCase(label="nominal")],
                      size_constants=facts[ref].constants)


def _gpumode(root: Path, facts: dict[str, PyFacts], manifest: Manifest | None,
            task_only: bool = False) -> Submission | None:
    ref = _pick_reference(facts, ("generate_input", "ref_kernel"))
    if ref is None:
        return None
    sub = _pick_submission(root, ref, r"def\s+custom_kernel\b") or (ref if task_only else None)
    if sub is None:
        raise IngestError(f"{root}: found the GPU MODE reference {ref} but no submission.py defining custom_kernel")
    tests: list[NominalCase] = []
    benchmarks: list[NominalCase] = []
    task = root / "task.yml"
    if task.exists():
        try:
            data = yaml.safe_load(task.read_text()) or {}
        except yaml.YAMLError as exc:
            raise IngestError(f"{task} is not valid YAML: {exc}") from exc
        for key, dest in (("tests", tests), ("benchmarks", benchmarks)):
            for i, entry in enumerate(data.get(key) or []):
                if not isinstance(entry, dict):
                    raise IngestError(f"{task}: {key}[{i}] is not a mapping of generate_input kwargs")
                dest.append(NominalCase(params=dict(entry), seed=entry.get("seed"), label=f"{key}[{i}]"))
    if not tests and manifest is not None and manifest.cases:
        tests = [NominalCase(params=c.params, seed=c.seed, label=c.label or f"cases[{i}]")
                 for i, c in enumerate(manifest.cases)]
    if not tests:
        raise IngestError(f"{root}: GPU MODE task without test cases: task.yml with a 'tests:' list "
                          "(or [[cases]] in kreview.toml) is needed to call generate_input")
    s = Submission(root=str(root), name=root.name, format="gpumode", framework="unknown",
                   reference_file=ref, submission_file=sub, entries={"submission": "custom_kernel"},
                   nominal_cases=tests, benchmarks=benchmarks)
    tol = call_keywords(facts[ref].tree, "make_match_reference") if facts[ref].tree else {}
    if tol:
        s.tolerance = s.tolerance.model_copy(update={k: float(v) for k, v in tol.items() if k in ("atol", "rtol")})
        s.tolerance_source = f"{ref}: make_match_reference({', '.join(f'{k}={v}' for k, v in tol.items())})"
    return s


def _split_entry(spec: str, default_file: str) -> tuple[str, str]:
    if ":" in spec:
        f, name = spec.split(":", 1)
        return f, name
    return default_file, spec


def _from_manifest(root: Path, m: Manifest, task_only: bool = False) -> Submission:
    if task_only and m.reference is not None and (m.submission is None or not (root / m.submission.file).is_file()):
        # the task alone (kreview audit): the reference stands in where the submission would be named
        m = m.model_copy(update={"submission": ManifestEntry(file=m.reference.file, entry=m.reference.entry)})
    if m.submission is None or m.reference is None:
        raise ManifestError(f"{root}/kreview.toml: a manifest-format submission needs [submission] and [reference]")
    for label, entry in (("submission", m.submission), ("reference", m.reference)):
        _confined(root, entry.file, f"[{label}] file")
        if not (root / entry.file).is_file():
            raise ManifestError(f"{root}/kreview.toml: [{label}] file {entry.file!r} does not exist")
        if not entry.entry:
            raise ManifestError(f"{root}/kreview.toml: [{label}] needs entry = \"function name\"")
    if not m.reference.inputs:
        raise ManifestError(f"{root}/kreview.toml: [reference] needs inputs = \"function making the inputs\"")
    inputs_file, inputs_entry = _split_entry(m.reference.inputs, m.reference.file)
    _confined(root, inputs_file, "inputs file")
    if not (root / inputs_file).is_file():
        raise ManifestError(f"{root}/kreview.toml: inputs file {inputs_file!r} does not exist")
    cases = [NominalCase(params=c.params, seed=c.seed, label=c.label or f"cases[{i}]")
             for i, c in enumerate(m.cases)] or [NominalCase(label="nominal")]
    return Submission(root=str(root), name=m.name or root.name, format="manifest", framework="unknown",
                      reference_file=m.reference.file, submission_file=m.submission.file,
                      inputs_file=inputs_file,
                      entries={"submission": m.submission.entry or "", "reference": m.reference.entry or "",
                               "inputs": inputs_entry},
                      nominal_cases=cases)


def load_submission(path: str | Path, hint: str | None = None, target_gpu: str | None = None,
                    *, follow_port: bool = True, task_only: bool = False) -> Submission:
    """Read ``path`` as a submission. Raises ``IngestError`` naming what was looked for.
    ``task_only`` (``kreview audit``): a task folder without a submission is read too, its reference
    file standing in as the submission file (nothing runs it as one).
    ``target_gpu`` (``--target``) replaces the submission's own ``[target]``. ``follow_port``: read the
    original a ``[port]`` manifest names too (one level: an original's own ``[port]`` is not followed)."""
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise IngestError(f"{path}: no such directory")
    if not root.is_dir():
        raise IngestError(f"{path} is a file; give the directory that holds the submission. Looked for: {LOOKED_FOR}")
    if hint is not None and hint not in FORMATS:
        raise IngestError(f"unknown format {hint!r}; known: {', '.join(FORMATS)}")
    check_tree(root)
    manifest = _read_manifest(root)
    wanted = hint or (manifest.format if manifest else None)
    if wanted is None and manifest is not None and (manifest.submission is not None or task_only) \
            and manifest.reference is not None:
        wanted = "manifest"
    facts = _facts(root)
    sub: Submission | None = None
    if wanted == "manifest":
        if manifest is None:
            raise IngestError(f"{root}: --format-hint manifest but no kreview.toml")
        sub = _from_manifest(root, manifest, task_only)
    elif wanted == "kernelbench":
        sub = _kernelbench(root, facts, task_only)
    elif wanted == "gpumode":
        sub = _gpumode(root, facts, manifest, task_only)
    else:
        sub = _kernelbench(root, facts, task_only) or _gpumode(root, facts, manifest, task_only)
    if sub is None:
        what = f" as {wanted}" if wanted else ""
        raise IngestError(f"{root} cannot be read{what}. Looked for: {LOOKED_FOR}")
    sub = _finish(root, sub, manifest, facts)
    if target_gpu:
        sub.target = Target(gpu=target_gpu)
    if follow_port and manifest is not None and manifest.port is not None:
        sub.original = _original(root, manifest.port.original, target_gpu)
    return sub


def _original(root: Path, rel: str, target_gpu: str | None) -> Submission:
    """The submission a port names as its original: a directory other than the port's own."""
    where = (root / rel).resolve()
    if root.is_relative_to(where):
        raise ManifestError(f"{root / 'kreview.toml'}: [port] original {rel!r} must be another submission directory "
                            f"(not this one, nor one above it)")
    if not where.is_dir():
        raise ManifestError(f"{root / 'kreview.toml'}: [port] original {rel!r} is not a directory")
    try:
        return load_submission(where, None, target_gpu, follow_port=False)
    except (IngestError, ManifestError) as exc:
        raise ManifestError(f"{root / 'kreview.toml'}: [port] original {rel!r} cannot be read: {exc}") from exc


def _finish(root: Path, sub: Submission, manifest: Manifest | None, facts: dict[str, PyFacts]) -> Submission:
    sub.framework, sub.frameworks_seen = _detect_framework(root, sub.submission_file)  # type: ignore[assignment]
    suffixes = source_suffixes()
    sub.source_files = sorted(p.name for p in root.iterdir() if p.is_file() and p.suffix in suffixes)
    if sub.submission_file.endswith(".py"):
        sf = facts.get(sub.submission_file) or read_facts(root / sub.submission_file)
        sub.syntax_error = sf.syntax_error
    if manifest is not None:
        sub.manifest_file = "kreview.toml"
        if manifest.name:
            sub.name = manifest.name
        if manifest.framework:
            from tools.engine.registry import backends

            known = sorted(backends()) + ["unknown"]
            if manifest.framework not in known:
                raise ManifestError(f"{root / 'kreview.toml'}: framework {manifest.framework!r} is not a registered "
                                    f"backend; one of {known}")
            sub.framework = manifest.framework
        if manifest.tolerance.atol is not None or manifest.tolerance.rtol is not None:
            sub.tolerance = manifest.tolerance
            sub.tolerance_source = "kreview.toml [tolerance]"
        sub.dtype = manifest.dtype
        sub.target = manifest.target
        sub.claims = manifest.claims
        sub.determinism_required = manifest.determinism_required
        if manifest.cases and sub.format == "kernelbench":
            sub.nominal_cases = [NominalCase(params=c.params, seed=c.seed, label=c.label or f"cases[{i}]")
                                 for i, c in enumerate(manifest.cases)]
    return sub
