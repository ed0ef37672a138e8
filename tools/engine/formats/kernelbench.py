"""KernelBench: a reference ``.py`` defining ``class Model``, ``get_inputs`` and ``get_init_inputs``, and a
submission defining ``class ModelNew``. The reference ``Model`` is the contract (any input it accepts is
in scope); its sizes are module-level constants that a case's params rebind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reviewer.core.errors import IngestError, UsageError
from reviewer.core.submission import Manifest, NominalCase, Submission
from tools.engine.formats.base import InitRequest, Scaffold, SubmissionFormat, pick_reference, pick_submission
from tools.engine.pysource import PyFacts
from tools.engine.sizes import int_kwargs, size_knobs, split_knob

# KernelBench's eval: allclose with atol = rtol = this per precision (its first release used 1e-2 for every
# dtype, the tolerance of the public zeros report; the stricter fp32 value is the one judged here).
REFERENCE_NAMES = {"Model", "get_inputs", "get_init_inputs"}
TOLERANCE = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


class KernelBenchFormat(SubmissionFormat):
    name = "kernelbench"
    title = "KernelBench"
    looked_for = ("KernelBench: a reference .py defining Model, get_inputs and get_init_inputs, and submission.py "
                  "defining ModelNew")
    sniff_order = 0
    programs = "tools.engine.harness.kernelbench"
    sizes_in_reference = True
    generator = None
    submission_names = ("ModelNew",)
    reference_names = ("Model",)

    def read(self, root: Path, facts: dict[str, PyFacts], manifest: Manifest | None,
             task_only: bool = False) -> Submission | None:
        ref = pick_reference(facts, ("get_inputs", "get_init_inputs"), ("Model",))
        if ref is None:
            return None
        sub = pick_submission(root, ref, r"class\s+ModelNew\b") or (ref if task_only else None)
        if sub is None:
            raise IngestError(f"{root}: found the KernelBench reference {ref} but no submission.py "
                              "(or a single other .py defining class ModelNew)")
        return Submission(root=str(root), name=root.name, format=self.name, framework="unknown",
                          reference_file=ref, submission_file=sub, entries={"submission": "ModelNew"},
                          nominal_cases=[NominalCase(label="nominal")],
                          size_constants=facts[ref].constants)

    init_order = 2

    def written_for(self, req: InitRequest) -> bool:
        return True  # the last one asked: what is neither a manifest nor GPU MODE is read as KernelBench

    def scaffold(self, req: InitRequest) -> Scaffold:
        missing_ref = REFERENCE_NAMES - req.ref_names
        if missing_ref:
            raise UsageError(f"{req.reference} lacks {sorted(missing_ref)}",
                             hint="a KernelBench reference defines class Model(nn.Module), get_inputs() and "
                                  "get_init_inputs() at module level; a GPU MODE one generate_input, ref_kernel and "
                                  "check_implementation; for any other pair of functions pass --entry (a manifest)")
        if "ModelNew" not in req.kernel_names:
            raise UsageError(f"{req.kernel} defines no ModelNew",
                             hint="wrap the kernel's launcher in class ModelNew(nn.Module) whose forward takes the "
                                  "same inputs as Model.forward (see docs/bring-your-own-kernel.md)")
        return Scaffold({"submission.py": req.kernel, "reference.py": req.reference})

    def task_files(self, root: Path, facts: dict[str, PyFacts]) -> list[Submission]:
        """Each reference file of a KernelBench level (level1/1_*.py ...): Model, get_inputs, get_init_inputs."""
        out = []
        for name, f in sorted(facts.items()):
            if f.tree is not None and {"get_inputs", "get_init_inputs"} <= set(f.functions) and "Model" in f.classes \
                    and "ModelNew" not in f.classes:
                out.append(Submission(root=str(root), name=Path(name).stem, format=self.name, framework="torch",
                                      reference_file=name, submission_file=name, entries={"submission": "ModelNew"},
                                      nominal_cases=[NominalCase(label="nominal")], size_constants=f.constants))
        return out

    def apply_manifest(self, sub: Submission, manifest: Manifest) -> None:
        if manifest.cases:
            sub.nominal_cases = self.cases_from(manifest.cases)

    def nominal_sizes(self, sub: Submission) -> dict[str, Any]:
        return dict(sub.size_constants)

    def size_knobs(self, sub: Submission, reference_source: str, params: dict[str, Any]) -> dict[str, int]:
        knobs = {k: v for k, v in size_knobs(reference_source).items() if k not in params}
        return knobs | int_kwargs(params)

    def size_parameters(self, sub: Submission) -> dict[str, int]:
        params = dict(sub.size_constants)
        if sub.nominal_cases and sub.nominal_cases[0].params:
            params.update(sub.nominal_cases[0].params)
        return {k: v for k, v in params.items() if isinstance(v, int) and not isinstance(v, bool) and k != "seed"}

    def probe_base(self, sub: Submission, keys: set[str]) -> tuple[dict[str, Any], dict[str, Any]] | str:
        unknown = sorted(k for k in keys if _constant(sub, k) is None)
        if unknown:
            return f"{', '.join(unknown)} not among the reference's size constants {sorted(sub.size_constants)}"
        return {}, dict(sub.size_constants)

    def is_nominal_size(self, sub: Submission, params: dict[str, Any]) -> bool:
        return all(_constant(sub, k) == v for k, v in params.items() if k != "seed")

    def knobs_text(self, sub: Submission) -> list[str]:
        sizes = {k: v for k, v in sub.size_constants.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        return ["params: the reference's module-level size constants (both sides are rebuilt with them): "
                + (", ".join(f"{k}={v}" for k, v in sizes.items()) or "none")]

    def task_tolerance(self, dtype: str) -> tuple[float, float, str] | None:
        tol = TOLERANCE.get(dtype, 1e-4)
        return tol, tol, f"KernelBench allclose atol=rtol={tol:g} for {dtype}"


def _constant(sub: Submission, knob: str) -> Any:
    """The nominal value of a size knob: a module-level constant, or one element of a tuple
    constant (``input_shape[0]``, tools/engine/sizes.py); None where the reference has none."""
    if knob in sub.size_constants:
        return sub.size_constants[knob]
    name, index = split_knob(knob)
    if index is None:
        return None
    try:
        return size_knobs(sub.source(sub.reference_file)).get(knob)
    except OSError:
        return None
