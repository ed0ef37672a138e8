"""Reading a submission directory: detect its format, find its files, parse what it claims.

Nothing here executes submission code; files are only read and parsed.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from pydantic import ValidationError

from reviewer.core.errors import IngestError, ManifestError, UnsafeSubmissionFile
# SKIPPED_DIRS: folders never read nor copied into the sandbox
from reviewer.core.submission import SKIPPED_DIRS, Manifest, Submission, Target
from tools.engine.formats.base import python_files
from tools.engine.pysource import PyFacts, read_facts
from tools.engine.formats import format_names, formats



def no_such_directory(path: str | Path) -> str:
    """``PATH: no such directory``, with the nearest name beside it when one is close (a typo)."""
    import difflib

    given = Path(path)
    parent = given.expanduser().parent
    try:
        names = [p.name for p in parent.iterdir() if p.is_dir()] if parent.is_dir() else []
    except OSError:
        names = []
    close = difflib.get_close_matches(given.name, names, n=1)
    hint = f" (did you mean {str(given.parent / close[0])!r}?)" if close else ""
    return f"{path}: no such directory{hint}"


def looked_for() -> str:
    """What a submission directory may hold: each registered format's ``looked_for``, in detection order."""
    table = formats()
    parts = [table[n].looked_for for n in format_names()]
    return "; ".join(parts[:-1]) + ("; or " if len(parts) > 1 else "") + parts[-1]

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


def _read_manifest(root: Path) -> Manifest | None:
    path = root / "kreview.toml"
    if not path.exists():
        return None
    try:
        data = tomllib.loads(path.read_text())
        return Manifest.model_validate(data)
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise ManifestError(f"{path} is not a valid kreview manifest:\n{exc}") from exc


def _facts(root: Path) -> dict[str, PyFacts]:
    return {p.name: read_facts(p) for p in python_files(root)}


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


def load_submission(path: str | Path, hint: str | None = None, target_gpu: str | None = None,
                    *, follow_port: bool = True, task_only: bool = False) -> Submission:
    """Read ``path`` as a submission. Raises ``IngestError`` naming what was looked for.
    ``task_only`` (``kreview audit``): a task folder without a submission is read too, its reference
    file standing in as the submission file (nothing runs it as one).
    ``target_gpu`` (``--target``) replaces the submission's own ``[target]``. ``follow_port``: read the
    original a ``[port]`` manifest names too (one level: an original's own ``[port]`` is not followed)."""
    root = Path(path).expanduser().resolve()
    if not root.exists():
        raise IngestError(no_such_directory(path))
    if not root.is_dir():
        raise IngestError(f"{path} is a file; give the directory that holds the submission. Looked for: {looked_for()}")
    table = formats()
    if hint is not None and hint not in table:
        raise IngestError(f"unknown format {hint!r}; known: {', '.join(format_names())}")
    check_tree(root)
    manifest = _read_manifest(root)
    wanted = hint or (manifest.format if manifest else None)
    if wanted is not None and wanted not in table:
        raise ManifestError(f"{root / 'kreview.toml'}: format {wanted!r} is not a registered submission format; "
                            f"one of {', '.join(format_names())}")
    if wanted is None:
        wanted = next((n for n in format_names() if table[n].claims(manifest, task_only)), None)
    facts = _facts(root)
    sub: Submission | None = None
    if wanted is not None:
        sub = table[wanted].read(root, facts, manifest, task_only)
    else:
        for name in format_names():
            if table[name].sniff_order is not None:
                sub = table[name].read(root, facts, manifest, task_only)
                if sub is not None:
                    break
    if sub is None:
        what = f" as {wanted}" if wanted else ""
        raise IngestError(f"{root} cannot be read{what}. Looked for: {looked_for()}")
    if sub.format != (wanted or sub.format) or sub.format not in table:
        raise IngestError(f"{root}: the {wanted or sub.format} format read it as {sub.format!r}")
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
        formats()[sub.format].apply_manifest(sub, manifest)
    return sub
