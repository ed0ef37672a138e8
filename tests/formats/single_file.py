"""A fourth submission format, to show what adding one takes: this class and its registration (an entry
point in a plugin's pyproject.toml; the test calls ``register_format`` instead).

*single_file*: one Python file holding the whole task and its solution: ``make_inputs(seed, **params)``
returns the inputs, ``reference(*inputs)`` the expected outputs, ``kernel(*inputs)`` the submission's,
and an optional literal ``CASES = [{...}, ...]`` lists ``make_inputs``'s keyword arguments. It reuses
the manifest format's child-side programs (the same function-style calls), so it brings none."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from reviewer.core.errors import IngestError
from reviewer.core.submission import Manifest, NominalCase, Submission
from tools.engine.formats.base import SubmissionFormat
from tools.engine.pysource import PyFacts

NEEDS = ("make_inputs", "reference", "kernel")


def _cases(tree: ast.Module, file: str) -> list[dict[str, Any]]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "CASES" for t in node.targets):
            try:
                cases = ast.literal_eval(node.value)
            except ValueError as exc:
                raise IngestError(f"{file}: CASES must be a literal list of keyword-argument mappings") from exc
            if not (isinstance(cases, list) and all(isinstance(c, dict) for c in cases)):
                raise IngestError(f"{file}: CASES must be a list of keyword-argument mappings")
            return cases
    return []


class SingleFileFormat(SubmissionFormat):
    name = "single_file"
    title = "single-file"
    looked_for = "single-file: one .py defining make_inputs, reference and kernel"
    sniff_order = 10
    programs = "tools.engine.harness.manifest"
    program_pair = "manifest"

    def read(self, root: Path, facts: dict[str, PyFacts], manifest: Manifest | None,
             task_only: bool = False) -> Submission | None:
        hits = [n for n, f in facts.items() if f.tree is not None and all(x in f.functions for x in NEEDS)]
        if len(hits) != 1:
            return None
        file = hits[0]
        tree = facts[file].tree
        assert tree is not None
        cases = [NominalCase(params=c, label=f"CASES[{i}]") for i, c in enumerate(_cases(tree, file))]
        return Submission(root=str(root), name=root.name, format=self.name, framework="unknown",
                          reference_file=file, submission_file=file,
                          entries={"submission": "kernel", "reference": "reference", "inputs": "make_inputs"},
                          nominal_cases=cases or [NominalCase(label="nominal")])

    def child_spec(self, sub: Submission, root: Path) -> dict[str, Any]:
        return {**super().child_spec(sub, root), "reference_entry": "reference", "inputs_entry": "make_inputs",
                "inputs_path": str(root / sub.reference_file)}
