"""The ``kreview.toml`` manifest: any pair of functions. ``[submission]`` names the file and entry the
harness calls, ``[reference]`` the reference's and its input generator (``inputs``), ``[[cases]]`` the
generator's keyword arguments. Chosen when the manifest names both tables (or ``format = "manifest"``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reviewer.core.errors import IngestError, ManifestError, UsageError
from reviewer.core.submission import Manifest, ManifestEntry, NominalCase, Submission
from tools.engine.formats.base import InitRequest, Scaffold, SubmissionFormat
from tools.engine.pysource import PyFacts


def confined(root: Path, rel: str, what: str) -> str:
    """A manifest path: relative, inside the submission directory, no '..'."""
    pure = Path(rel)
    if pure.is_absolute() or ".." in pure.parts or not rel.strip():
        raise ManifestError(f"{root}/kreview.toml: {what} {rel!r} must be a relative path inside the submission "
                            "directory (no absolute path, no '..')")
    return rel


def _split_entry(spec: str, default_file: str) -> tuple[str, str]:
    if ":" in spec:
        f, name = spec.split(":", 1)
        return f, name
    return default_file, spec


class ManifestFormat(SubmissionFormat):
    name = "manifest"
    title = "manifest"
    looked_for = "a kreview.toml manifest with [submission] and [reference] tables"
    programs = "tools.engine.harness.manifest"

    init_order = 0

    def written_for(self, req: InitRequest) -> bool:
        return bool(req.entry)

    def scaffold(self, req: InitRequest) -> Scaffold:
        import json

        if req.entry not in req.kernel_names:
            raise UsageError(f"{req.kernel} defines no {req.entry!r} (--entry)")
        if not req.ref_entry or req.ref_entry not in req.ref_names:
            raise UsageError(f"{req.reference} defines no {req.ref_entry!r} (--ref-entry)",
                             hint="name the reference function with --ref-entry")
        if not req.inputs or req.inputs not in req.ref_names:
            raise UsageError(f"{req.reference} defines no {req.inputs!r} (--inputs)",
                             hint="--inputs names a function of the reference file: make_inputs(seed=..., **params) "
                                  "-> list of inputs")
        files = {"kernel.py": req.kernel, "ref.py": req.reference}
        for p in req.extra:
            files[p.name] = p
        toml = ["[submission]", 'file = "kernel.py"', f'entry = "{req.entry}"', "[reference]", 'file = "ref.py"',
                f'entry = "{req.ref_entry}"', f'inputs = "{req.inputs}"']
        for c in req.cases:
            try:
                params = json.loads(c)
                assert isinstance(params, dict)
            except (ValueError, AssertionError):
                raise UsageError(f"--case {c!r} is not a JSON object of parameters, e.g. '{{\"n\": 4096}}'") from None
            inline = ", ".join(f"{k} = {json.dumps(v)}" for k, v in params.items())
            toml += ["[[cases]]", f"params = {{ {inline} }}"]
        return Scaffold(files, toml)

    def claims(self, manifest: Manifest | None, task_only: bool) -> bool:
        return manifest is not None and (manifest.submission is not None or task_only) \
            and manifest.reference is not None

    def read(self, root: Path, facts: dict[str, PyFacts], manifest: Manifest | None,
             task_only: bool = False) -> Submission | None:
        if manifest is None:
            raise IngestError(f"{root}: --format-hint manifest but no kreview.toml")
        m = manifest
        if task_only and m.reference is not None and (m.submission is None
                                                      or not (root / m.submission.file).is_file()):
            # the task alone (kreview audit): the reference stands in where the submission would be named
            m = m.model_copy(update={"submission": ManifestEntry(file=m.reference.file, entry=m.reference.entry)})
        if m.submission is None or m.reference is None:
            raise ManifestError(f"{root}/kreview.toml: a manifest-format submission needs [submission] and [reference]")
        for label, entry in (("submission", m.submission), ("reference", m.reference)):
            confined(root, entry.file, f"[{label}] file")
            if not (root / entry.file).is_file():
                raise ManifestError(f"{root}/kreview.toml: [{label}] file {entry.file!r} does not exist")
            if not entry.entry:
                raise ManifestError(f"{root}/kreview.toml: [{label}] needs entry = \"function name\"")
        if not m.reference.inputs:
            raise ManifestError(f"{root}/kreview.toml: [reference] needs inputs = \"function making the inputs\"")
        inputs_file, inputs_entry = _split_entry(m.reference.inputs, m.reference.file)
        confined(root, inputs_file, "inputs file")
        if not (root / inputs_file).is_file():
            raise ManifestError(f"{root}/kreview.toml: inputs file {inputs_file!r} does not exist")
        cases = self.cases_from(m.cases) or [NominalCase(label="nominal")]
        return Submission(root=str(root), name=m.name or root.name, format=self.name, framework="unknown",
                          reference_file=m.reference.file, submission_file=m.submission.file,
                          inputs_file=inputs_file,
                          entries={"submission": m.submission.entry or "", "reference": m.reference.entry or "",
                                   "inputs": inputs_entry},
                          nominal_cases=cases)

    def child_spec(self, sub: Submission, root: Path) -> dict[str, Any]:
        return {**super().child_spec(sub, root),
                "reference_entry": sub.entries["reference"],
                "inputs_entry": sub.entries["inputs"],
                "inputs_path": str(root / (sub.inputs_file or sub.reference_file))}
