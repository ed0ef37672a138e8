"""What a submission format is: the third kind of plugin, beside tools and backends.

A format owns everything that differs between KernelBench, GPU MODE, a ``kreview.toml`` manifest
and whatever comes next: how a directory is recognised and read into a ``Submission``, where its
sizes live, which nominal cases it runs, whether a probe may cast its inputs, what its entry points
are called, the task's own check, and which child-side programs load it in the sandbox. Callers ask
the submission's format (``registry.format_of(sub)``) instead of comparing ``sub.format`` with a
name, so a new format is one class (plus an entry point), and a format nobody registered is refused
when the submission is loaded instead of silently behaving like another.

Defaults describe a *generator* task (the task's input generator takes keyword arguments that are
its sizes): the GPU MODE and manifest formats. KernelBench overrides the size methods (its sizes
are module-level constants of the reference).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from reviewer.core.submission import Manifest, NominalCase, Submission
from tools.engine.harness.case import Case
from tools.engine.pysource import PyFacts
from tools.engine.sizes import int_kwargs


@dataclass(frozen=True)
class InitRequest:
    """What ``kreview init`` was given: the two files, the top-level names each defines, and the options."""

    kernel: Path
    reference: Path
    kernel_names: set[str]
    ref_names: set[str]
    task: Path | None = None
    extra: list[Path] = field(default_factory=list)
    entry: str | None = None
    ref_entry: str | None = None
    inputs: str | None = None
    cases: list[str] = field(default_factory=list)


@dataclass
class Scaffold:
    """A submission directory to write: file name -> the file copied there, and kreview.toml lines."""

    files: dict[str, Path]
    toml: list[str] = field(default_factory=list)


def _int_sizes(params: dict[str, Any]) -> dict[str, int]:
    return {k: v for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool) and k != "seed"}


def without_seed(params: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k != "seed"}


class SubmissionFormat(ABC):
    """One submission format. Subclasses set the class attributes and implement ``read``."""

    name: ClassVar[str]
    """The format's name: ``Submission.format``, ``--format-hint``, ``format =`` in kreview.toml."""
    title: ClassVar[str]
    """How messages name it ("GPU MODE")."""
    looked_for: ClassVar[str]
    """What a directory of this format holds, for the error that lists what was looked for."""
    sniff_order: ClassVar[int | None] = None
    """Place in auto-detection (lower first); None: chosen only by name (``--format-hint``,
    ``format =``) or by ``claims``."""
    programs: ClassVar[str]
    """Module of the child-side ``ReferenceProgram``/``SubmissionProgram`` pair (tools/engine/harness/
    programs.py); every sandbox child imports each registered format's before user code loads."""
    program_pair: ClassVar[str] = ""
    """The name that module registers its pair under (default: ``name``); a format may reuse another's pair."""
    sizes_in_reference: ClassVar[bool] = False
    """True: the reference's module-level constants are the sizes, and a case's params rebind them.
    False: a case's params are keyword arguments of the task's input generator."""
    generator: ClassVar[str | None] = "input generator"
    """What makes the task's inputs when that is the task's contract (probes outside what it produces
    are advisory: tools/engine/contract.py); None: the reference accepts any input, all are in scope."""
    casts_dtype: ClassVar[bool] = True
    """Whether a probe may cast the inputs to another dtype (False: the generator's arguments set it)."""
    own_check: ClassVar[str | None] = None
    """The name of the task's own output check in the reference file, run beside the comparison."""
    submission_names: ClassVar[tuple[str, ...]] = ()
    """What the harness calls in the submission file, besides ``entries["submission"]``."""
    reference_names: ClassVar[tuple[str, ...]] = ()
    """What computes the answer in the reference file, besides ``entries["reference"]``."""

    # -- reading a directory -------------------------------------------------------------------
    @abstractmethod
    def read(self, root: Path, facts: dict[str, PyFacts], manifest: Manifest | None,
             task_only: bool = False) -> Submission | None:
        """``root`` read as this format, or None when it is not one (raise ``IngestError`` when it is
        one but incomplete). ``facts``: the parsed top-level Python files; ``manifest``: kreview.toml."""

    def task_files(self, root: Path, facts: dict[str, PyFacts]) -> list[Submission]:
        """The tasks of a folder holding several task files side by side, each read alone (``kreview
        audit`` of a benchmark level); [] when the format has no such layout."""
        return []

    def claims(self, manifest: Manifest | None, task_only: bool) -> bool:
        """Whether a kreview.toml without ``format =`` makes the directory this format."""
        return False

    def apply_manifest(self, sub: Submission, manifest: Manifest) -> None:
        """What a kreview.toml beside the format's own files adds to it besides the common facts."""

    # -- kreview init -----------------------------------------------------------------------------
    init_order: ClassVar[int | None] = None
    """Place among the formats ``kreview init`` asks whether two files are written for them (lower
    first; None: init does not write this format)."""

    def written_for(self, req: InitRequest) -> bool:
        """Whether ``req``'s files (or options) are written for this format."""
        return False

    def scaffold(self, req: InitRequest) -> Scaffold:
        """The submission directory for ``req``, or ``UsageError`` saying what the files lack."""
        raise NotImplementedError(f"kreview init does not write the {self.name} format")

    # -- the child ---------------------------------------------------------------------------------
    def child_spec(self, sub: Submission, root: Path) -> dict[str, Any]:
        """Paths and entry names for the sandbox child, whose copy of the files lives at ``root``."""
        return {"reference_path": str(root / sub.reference_file),
                "submission_path": str(root / sub.submission_file),
                "entry": sub.entries.get("submission")}

    def load_request(self, sub: Submission, role: str, root: Path) -> dict[str, Any]:
        """The child's ``load`` request for ``role`` (tools/engine/harness/ops.py)."""
        return {"format": self.program_pair or self.name, "role": role, "spec": self.child_spec(sub, root)}

    # -- cases and sizes ---------------------------------------------------------------------------
    def nominal_cases(self, sub: Submission, seeds: list[int], n_seeds: int, purpose: str) -> list[Case]:
        """The nominal inputs under the run's ``seeds``: every nominal case under each seed (its own
        seed first, when it names one)."""
        cases: list[Case] = []
        for i, nc in enumerate(sub.nominal_cases):
            case_seeds = ([nc.seed] if nc.seed is not None else []) + seeds
            for j, seed in enumerate(case_seeds[:max(n_seeds, 1)]):
                cases.append(Case(id=f"{purpose}-{i}-{j}", seed=seed, params=dict(nc.params), dtype=sub.dtype,
                                  label=f"{nc.label}, seed {seed}"))
        return cases

    def nominal_sizes(self, sub: Submission) -> dict[str, Any]:
        """The sizes a case's params rebind, with their nominal values ({} for a generator task, whose
        params are the generator's arguments)."""
        return {}

    def size_knobs(self, sub: Submission, reference_source: str, params: dict[str, Any]) -> dict[str, int]:
        """The integer size knobs of a case with ``params``, with their nominal values."""
        return int_kwargs(params)

    def size_parameters(self, sub: Submission) -> dict[str, int]:
        """The integer sizes of the first nominal case."""
        return _int_sizes(dict(sub.nominal_cases[0].params) if sub.nominal_cases else {})

    def probe_base(self, sub: Submission, keys: set[str]) -> tuple[dict[str, Any], dict[str, Any]] | str:
        """(params a probe changing ``keys`` starts from, nominal value per key) or why it cannot."""
        for nc in sub.nominal_cases:
            if keys <= set(nc.params) - {"seed"}:
                return dict(nc.params), dict(nc.params)
        known = sorted({k for nc in sub.nominal_cases for k in nc.params} - {"seed"})
        return f"{', '.join(sorted(keys))} not all generator arguments of one nominal case (known: {known})"

    def is_nominal_size(self, sub: Submission, params: dict[str, Any]) -> bool:
        """Whether ``params`` (seed aside) are the sizes of one of the nominal cases."""
        return without_seed(params) in [without_seed(nc.params) for nc in sub.nominal_cases]

    def knobs_text(self, sub: Submission) -> list[str]:
        """What a probe's params may change, in words the planner can follow."""
        return [f"params: generator arguments of {nc.label or 'a nominal case'}: {without_seed(nc.params)}"
                for nc in sub.nominal_cases]

    # -- the task's own check ----------------------------------------------------------------------
    def task_tolerance(self, dtype: str) -> tuple[float, float, str] | None:
        """(atol, rtol, how the task says it) the task's own check uses for outputs of ``dtype``
        (``float32``, ...) when the task states no tolerance; None: the per-dtype defaults."""
        return None

    def cases_from(self, entries: list[Any]) -> list[NominalCase]:
        """kreview.toml ``[[cases]]`` as nominal cases."""
        return [NominalCase(params=c.params, seed=c.seed, label=c.label or f"cases[{i}]")
                for i, c in enumerate(entries)]


# -- helpers the built-in formats share for finding their files --------------------------------------
def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.suffix == ".py" and p.is_file())


def pick_reference(facts: dict[str, PyFacts], needs: tuple[str, ...], classes: tuple[str, ...] = ()) -> str | None:
    """``reference.py`` when it defines ``needs`` and ``classes``, else the one other file that does."""
    def ok(f: PyFacts) -> bool:
        return f.tree is not None and all(n in f.functions for n in needs) and all(c in f.classes for c in classes)

    if "reference.py" in facts and ok(facts["reference.py"]):
        return "reference.py"
    hits = [name for name, f in facts.items() if ok(f) and name != "submission.py"]
    return hits[0] if len(hits) == 1 else None


def pick_submission(root: Path, reference: str, marker: str) -> str | None:
    """``submission.py``, else the one other Python file matching the regular expression ``marker``."""
    import re

    if (root / "submission.py").exists():
        return "submission.py"
    hits = [p.name for p in python_files(root)
            if p.name != reference and re.search(marker, p.read_text(errors="replace"))]
    return hits[0] if len(hits) == 1 else None
