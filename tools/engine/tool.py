"""The tool interface and the context every tool runs in."""

from __future__ import annotations

import shlex
import threading
import zlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np
from pydantic_core import to_jsonable_python

from reviewer.core.config import ToolOptions
from reviewer.core.errors import ToolError
from reviewer.core.submission import Submission
from reviewer.core.models import Evidence, Finding, Outcome, SourceSpan
from tools.engine.background import Background
from tools.engine.facts import BuildOutcome, Facts
from tools.engine.results import ResultModel
from tools.engine.runsetup import DeviceInfo, RunSetup
from tools.engine.harness.case import Case
from tools.engine.review_plan import ReviewPlan
from tools.engine.sandbox import CallResult
from tools.engine.source import SourceView
from tools.engine.session import SandboxSession
from tools.engine.value_slice import value_spans

T = TypeVar("T")
_MAPPINGS = frozenset({"inputs", "config", "result"})
"""The free-form mappings of an evidence item (``Evidence.inputs``, ``config``, ``result``)."""


@dataclass
class ToolContext:
    submission: Submission
    options: ToolOptions
    """What the tools read of the run's configuration (seeds, budget, tolerance, target, device, limits)."""
    run_dir: Path
    device: DeviceInfo
    setup: RunSetup
    master_seed: int
    session: SandboxSession
    evidence: list[Evidence] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    plan: ReviewPlan = field(default_factory=ReviewPlan)
    """The plan node's decisions: tools to run, planned probes, the model's findings (tools/engine/review_plan.py)."""
    facts: Facts = field(default_factory=Facts)
    """Typed facts one tool leaves for later ones (tools/engine/facts.py)."""
    background: list[Background[Any]] = field(default_factory=list)
    """Work the tools started in threads (``start_background``); the review's close stops what is left."""
    _source: SourceView | None = field(default=None, repr=False)

    @property
    def source(self) -> SourceView:
        """The submission's texts and syntax trees, each read and parsed once per review."""
        if self._source is None or self._source.submission is not self.submission:
            self._source = SourceView(self.submission)
        return self._source

    def start_background(self, work: Callable[[threading.Event], T], *, name: str,
                         on_stop: Callable[[], None] | None = None) -> Background[T]:
        """``work`` started in a thread now (tools/engine/background.py), stopped by the review's close if
        no tool has taken its result by then."""
        job = Background(work, name=name, on_stop=on_stop)
        self.background.append(job)
        return job

    def stop_background(self) -> None:
        """Stop every unfinished piece of work the tools started (an interrupted review), each waited for."""
        for job in self.background:
            job.stop()

    # -- seeds and cases ---------------------------------------------------------------------
    def seeds(self, n: int, purpose: str) -> list[int]:
        """``n`` seeds derived from the run's master seed and ``purpose``: reproducible with --seed,
        unknowable to a submission in advance."""
        rng = np.random.default_rng([self.master_seed, zlib.crc32(purpose.encode())])
        return [int(s) for s in rng.integers(1, 2**31 - 1, size=n)]

    def tolerance(self) -> tuple[float | None, float | None]:
        """(atol, rtol) overrides: CLI over manifest/task; ``None`` means the dtype default."""
        atol = self.options.tolerance.atol if self.options.tolerance.atol is not None else self.submission.tolerance.atol
        rtol = self.options.tolerance.rtol if self.options.tolerance.rtol is not None else self.submission.tolerance.rtol
        return atol, rtol

    # -- evidence ----------------------------------------------------------------------------
    def add_evidence(self, tool: Tool, *, outcome: Outcome, summary: str,
                     criteria: list[str] | None = None, **fields: Any) -> Evidence:
        """Record one item under ``tool``, the tool that gathered it (never another tool's name). Its
        ``criteria`` (default: all the tool declares) must be among the tool's ``Tool.criteria``:
        naming another is a bug of the tool, raised as ``ToolError``."""
        if not isinstance(tool, Tool):
            raise ToolError(f"evidence is recorded by the Tool that gathered it, not under the name {tool!r}")
        name, declared = tool.name, tuple(tool.criteria)
        crit = list(declared) if criteria is None else list(criteria)
        stray = [c for c in crit if c not in declared]
        if stray:
            raise ToolError(f"tool {name!r} recorded evidence for criteria {stray} that it does not declare "
                            f"(Tool.criteria = {list(declared)})")
        n = 1 + sum(1 for e in self.evidence if e.tool == name)
        # Rationale: the item holds its mappings in the form review.json and the run's checkpoint give back
        # (tuples as lists, paths as strings, NaN and inf as null), so a later tool reads the same values
        # whether the run went straight through or was resumed, and the JSON output is what tools saw.
        for key in _MAPPINGS.intersection(fields):
            fields[key] = to_jsonable_python(fields[key], inf_nan_mode="null")
        ev = Evidence(id=f"{name}-{n}", tool=name, criteria=crit, outcome=outcome, summary=summary, **fields)
        self.evidence.append(ev)
        return ev

    def add_finding(self, **fields: Any) -> Finding:
        f = Finding(id=f"F{len(self.findings) + 1}", **fields)
        self.findings.append(f)
        return f

    def prior(self, tool: str) -> list[Evidence]:
        return [e for e in self.evidence if e.tool == tool]

    def builds_failed(self) -> bool:
        """Whether the build check (the tool that leaves a ``BuildOutcome`` fact) recorded anything but
        a pass: tools that run the submission then record nothing, and the rubric reports their
        criteria as not assessed. No such fact (the check was skipped): False."""
        built = self.facts.get(BuildOutcome)
        return built is not None and built.failed

    def rerun(self, tool: str, case: Case | None = None) -> str:
        # Rationale: the master seed and the work budget decide every seed and configuration a
        # tool plans, so a rerun without them is a different check (issue: reruns ran seed 0).
        parts = ["kreview", "rerun", shlex.quote(self.submission.root), "--tool", tool]
        if case is not None:
            parts += ["--case", shlex.quote(case.spec())]
        parts += ["--seed", str(self.master_seed)]
        if self.options.budget != 1.0:
            parts += ["--budget", repr(self.options.budget)]
        if self.options.target_gpu:
            parts += ["--target", shlex.quote(self.options.target_gpu)]
        atol, rtol = self.options.tolerance.atol, self.options.tolerance.rtol
        if atol is not None:
            parts += ["--atol", repr(atol)]
        if rtol is not None:
            parts += ["--rtol", repr(rtol)]
        if self.options.device != "auto":
            parts += ["--device", self.options.device]
        return " ".join(parts)

    def artifact_dir(self, tool: str) -> Path:
        d = self.run_dir / "artifacts" / tool
        d.mkdir(parents=True, exist_ok=True)
        return d

    def environment(self) -> dict[str, Any]:
        env = {"device": self.device.name, "run_setup": self.setup.note or "native",
               "cuda_shim": "tools.engine.harness.cuda_shim" in self.setup.preludes,
               "limits": self.options.limits.describe()}
        if "tools.engine.harness.virtual_gpu" in self.setup.preludes:
            from tools.engine.harness.virtual_gpu import spec_for

            spec = spec_for(self.submission.target.gpu, tuple(self.submission.target.arch))
            env["virtual_gpu"] = f"{spec['name']} ({spec['arch']}); {spec['chosen_by']}"
        return env

    def value_spans(self) -> list[SourceSpan]:
        """Where the submission's kernels compute the values they store (tools/engine/value_slice.py)."""
        return value_spans(self.submission, self.source)

    def submission_span(self, line: int | None, end: int | None = None) -> list[SourceSpan]:
        """A span of the submission file with its real text quoted, or nothing if out of range."""
        if not line:
            return []
        lines = self.source.lines
        end = end or line
        if line < 1 or end > len(lines):
            return []
        return [SourceSpan(file=self.submission.submission_file, start_line=line, end_line=end,
                           quote="\n".join(lines[line - 1:end]))]


class Tool(ABC):
    """One concrete evidence-gathering tool.

    ``criteria`` are the rubric criteria its evidence bears on: the one map from tools to criteria
    (the rubric says how evidence becomes a verdict, not which tools feed it); every item it records
    names a subset of them. ``after`` names tools whose facts it reads (tools/engine/facts.py). ``run`` must never raise for a submission's misbehaviour: it records
    evidence. (If it raises anyway, the graph records an ``unverified`` tool-error item.)"""

    name: ClassVar[str]
    criteria: ClassVar[tuple[str, ...]]
    after: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str] = ""
    frameworks: ClassVar[tuple[str, ...] | None] = None
    """The frameworks whose kernels this tool reads (backend names); None: any framework. A submission
    qualifies when its framework is one of them, or, with ``mixed``, when any kernel it holds is
    (``Submission.frameworks_seen``: a CUDA extension beside a Triton kernel)."""
    mixed: ClassVar[bool] = False
    leaves: ClassVar[tuple[type, ...]] = ()
    """The fact types (tools/engine/facts.py) it puts in ``ctx.facts`` for later tools. (A backend's facts
    and a shared helper's cache, such as ``NominalRuns``, are not a tool's to declare.)"""
    needs: ClassVar[tuple[type, ...]] = ()
    """Fact types its evidence is made from, so that without them it is not the same evidence (compiled_code
    reads the kernels resources compiled): a rerun of it alone (``kreview rerun --tool``) first runs the
    tools that leave them (``registry.rerun_chain``); each is left by a tool among its ``after``."""
    replays_cases: ClassVar[bool] = False
    """Its evidence's ``inputs.case`` (and a search's tried cases) are configurations the submission was
    judged on: a differential comparison (``kreview compare``, the port tool) replays them
    (``registry.case_sources``)."""
    standard_check: ClassVar[Literal["runs", "nominal_outputs"] | None] = None
    """Which of the two standard checks this tool is: "runs" (imports and runs once on the nominal inputs),
    "nominal_outputs" (outputs match the reference on the nominal inputs). The run check is the first to
    run the submission: when it is chosen, the graph starts the sandbox children while the source-reading
    model plans. A KernelBench-style baseline files each check's verdict under that tool's criterion
    (``registry.baseline_criterion``)."""
    result_model: ClassVar[type[ResultModel] | None] = None
    """The typed model its items' ``result`` follows, for readers (tools/engine/results.py, ``registry.results``)."""
    after_results: ClassVar[tuple[type[ResultModel], ...]] = ()
    """Runs after every tool whose ``result_model`` is one of these (diagnosis reads failures of any tool)."""
    fresh_submission_child: ClassVar[bool] = False
    """It restarts the submission child before using it (``ctx.session.restart("submission")``: memcheck
    wants a heap no earlier call touched, integrity_runtime counts only its own calls) and may leave it
    restarted or dirtied. Such tools run after every tool that uses the child as it is and does not have
    to follow them (``registry.ordered_tools``), so no child is started again only for a later tool;
    a tool's evidence never depends on that order."""

    def applies(self, ctx: ToolContext) -> str | None:
        """``None`` if the tool applies to this submission (its framework already checked against
        ``frameworks``), else why it does not."""
        return None

    def not_applicable(self, ctx: ToolContext) -> str | None:
        """Why the tool does not apply to this submission (its framework, then ``applies``), or None."""
        sub = ctx.submission
        if self.frameworks is not None:
            used = (sub.framework, *sub.frameworks_seen) if self.mixed else (sub.framework,)
            if not set(used) & set(self.frameworks):
                kinds = " or ".join(self.frameworks)
                return f"{self.name} reads {kinds} kernels; this submission is {sub.framework}"
        return self.applies(ctx)

    def prepare(self, ctx: ToolContext) -> None:
        """Start ahead what this tool will otherwise wait for, while the tools before it run (the graph
        calls it once the run check passed, issue 34). It changes when processes start, never what they
        do or what the tool finds. The default: a ``fresh_submission_child`` tool gets a spare submission
        child (``SandboxSession.stand_by``) that its restart puts in place."""
        if self.fresh_submission_child:
            ctx.session.stand_by("submission")

    ahead_after: ClassVar[str | None] = None
    """The tool whose end lets this one start its work ahead (``ahead``); None: it never does."""

    def ahead(self, ctx: ToolContext) -> None:
        """Called once the tool ``ahead_after`` names has ended, where the run check passed: start what this
        tool will wait for (a child) later than ``prepare`` does, when the tools before it leave a core idle
        (issue 34). Like ``prepare``, it changes when processes start, never what the tool finds. A tool
        may also start there the part of its work that waits only on processes of its own
        (tools/engine/background.py: resources' compiles), and take the result when it runs; a call it
        makes to the submission child there is made at that point of the child's calls."""

    def start_apart(self, ctx: ToolContext) -> None:
        """Called by the plan node for each tool it chose, before any tool runs: start in a thread
        (tools/engine/background.py) the part of this tool's work that runs only compilers of its own on the
        submission's files (no sandbox child, no request to one: nvcc on a CUDA source), and take its result
        when the tool runs. It changes when that work runs, never what it is."""

    @abstractmethod
    def run(self, ctx: ToolContext) -> None: ...

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        """Re-run one case (what `kreview rerun --tool T --case JSON` calls). Tools that work case by
        case override this."""
        raise NotImplementedError(f"tool {self.name!r} cannot rerun a single case; rerun the review")


def failure_details(call: CallResult) -> dict[str, Any]:
    """What a failed sandbox call says, in a form fit for ``Evidence.result``."""
    out: dict[str, Any] = {"duration_s": round(call.duration_s, 3)}
    if call.crash is not None:
        out.update(crash=call.crash.kind, message=call.crash.message, exit_code=call.crash.exit_code,
                   signal=call.crash.signal, stderr_tail=call.crash.stderr_tail[-3000:])
    elif call.error is not None:
        out.update(error_type=call.error.get("type"), message=call.error.get("message"),
                   traceback=(call.error.get("traceback") or "")[-4000:])
        if call.stderr_tail:
            out["stderr_tail"] = call.stderr_tail[-2000:]
    return out


def user_frame_line(call: CallResult, filename: str) -> int | None:
    """The last line of ``filename`` in a traceback, to anchor a finding to the source."""
    tb = (call.error or {}).get("traceback") or (call.crash.stderr_tail if call.crash else "")
    line = None
    needle = f'{filename}", line '
    for part in tb.split("\n"):
        if needle in part:
            try:
                line = int(part.split(needle, 1)[1].split(",")[0])
            except ValueError:
                pass
    return line
