"""GPU MODE: ``reference.py`` defining ``generate_input`` and ``ref_kernel`` (and usually the task's own
``check_implementation``), ``submission.py`` defining ``custom_kernel``, and ``task.yml`` whose ``tests:``
are ``generate_input``'s keyword arguments. The generator is the contract and fixes the dtype."""

from __future__ import annotations

from pathlib import Path

import yaml

from reviewer.core.errors import IngestError, UsageError
from reviewer.core.submission import Manifest, NominalCase, Submission
from tools.engine.formats.base import InitRequest, Scaffold, SubmissionFormat, pick_reference, pick_submission
from tools.engine.harness.case import Case
from tools.engine.pysource import PyFacts, call_keywords


REFERENCE_NAMES = {"generate_input", "ref_kernel", "check_implementation"}


def _with_seed(params: dict, seed: int) -> dict:
    return {**params, "seed": seed} if "seed" in params else dict(params)


class GpuModeFormat(SubmissionFormat):
    name = "gpumode"
    title = "GPU MODE"
    looked_for = ("GPU MODE: reference.py defining generate_input and ref_kernel, submission.py defining "
                  "custom_kernel, and task.yml with tests:")
    sniff_order = 1
    programs = "tools.engine.harness.gpumode"
    generator = "generate_input"
    casts_dtype = False
    own_check = "check_implementation"
    submission_names = ("custom_kernel",)
    reference_names = ("ref_kernel",)

    init_order = 1

    def written_for(self, req: InitRequest) -> bool:
        return REFERENCE_NAMES <= req.ref_names or "custom_kernel" in req.kernel_names

    def scaffold(self, req: InitRequest) -> Scaffold:
        missing_ref = REFERENCE_NAMES - req.ref_names
        if missing_ref or "custom_kernel" not in req.kernel_names:
            what = [*sorted(missing_ref), *([] if "custom_kernel" in req.kernel_names
                                            else [f"custom_kernel in {req.kernel}"])]
            raise UsageError(f"a GPU MODE submission lacks {what}",
                             hint="the reference defines generate_input, ref_kernel and check_implementation; the "
                                  "kernel file defines custom_kernel(data)")
        if req.task is None:
            raise UsageError("a GPU MODE submission needs its task.yml (--task): its tests and benchmarks are "
                             "the sizes the review runs")
        files = {"submission.py": req.kernel, "reference.py": req.reference, "task.yml": req.task}
        for p in req.extra:
            files[p.name] = p
        return Scaffold(files)

    def read(self, root: Path, facts: dict[str, PyFacts], manifest: Manifest | None,
             task_only: bool = False) -> Submission | None:
        ref = pick_reference(facts, ("generate_input", "ref_kernel"))
        if ref is None:
            return None
        sub = pick_submission(root, ref, r"def\s+custom_kernel\b") or (ref if task_only else None)
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
            tests = self.cases_from(manifest.cases)
        if not tests:
            raise IngestError(f"{root}: GPU MODE task without test cases: task.yml with a 'tests:' list "
                              "(or [[cases]] in kreview.toml) is needed to call generate_input")
        s = Submission(root=str(root), name=root.name, format=self.name, framework="unknown",
                       reference_file=ref, submission_file=sub, entries={"submission": "custom_kernel"},
                       nominal_cases=tests, benchmarks=benchmarks)
        tol = call_keywords(facts[ref].tree, "make_match_reference") if facts[ref].tree else {}
        if tol:
            s.tolerance = s.tolerance.model_copy(update={k: float(v) for k, v in tol.items() if k in ("atol", "rtol")})
            s.tolerance_source = f"{ref}: make_match_reference({', '.join(f'{k}={v}' for k, v in tol.items())})"
        return s

    def nominal_cases(self, sub: Submission, seeds: list[int], n_seeds: int, purpose: str) -> list[Case]:
        """Every ``tests:`` entry with its public seed, then ``n_seeds`` entries re-seeded with seeds the
        submission cannot know (GPU MODE's own harness mixes a secret seed in for the same reason)."""
        dtype = sub.dtype
        cases: list[Case] = []
        for i, nc in enumerate(sub.nominal_cases):
            seed = nc.seed if nc.seed is not None else seeds[i % len(seeds)]
            cases.append(Case(id=f"{purpose}-t{i}", seed=seed, params=_with_seed(nc.params, seed), dtype=dtype,
                              label=f"{nc.label} (public seed)"))
        for j, seed in enumerate(seeds):
            nc = sub.nominal_cases[j % len(sub.nominal_cases)]
            if "seed" in nc.params:
                cases.append(Case(id=f"{purpose}-s{j}", seed=seed, params=_with_seed(nc.params, seed), dtype=dtype,
                                  label=f"{nc.label} with run seed {seed}"))
        return cases
