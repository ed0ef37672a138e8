"""The backend interface: what the reviewer needs to know about, and do with, a kernel framework.

One small interface per framework (Triton, Pallas, CUDA, NKI, plain torch; a sixth one is a class of
the same shape registered under the ``kreview.backends`` entry-point group):

- detection: ``markers``, ``marker_suffixes`` and ``priority`` (``detect``, which sees the submission's
  source and its file names); ``source_suffixes``, the suffixes of the framework's own source files;
- capability flags: ``supports_static_compile``, ``supports_sanitizer``;
- what generic checks need to know: ``custom_kernel``, ``launch_instruments``, ``launch_count``,
  ``launches_show_skipped_work``, ``jax_traced``; the run setup's ``unfaithful_dtypes``;
- run: ``run_setup(device)`` -> ``RunSetup`` (environment, preludes, whether it is interpreted,
  or why it cannot run here);
- compile/lower: ``lower(ctx)`` -> ``Lowered`` results for the targets the kernel is written for,
  compiled without a device (``None``: the backend has no such hook);
- dynamic checks: ``check_modes(ctx)`` lists the ways to run one case under a sanitizer or another
  interpreter, ``run_mode(ctx, mode, case, ref)`` runs it;
- static analysis: ``static_findings(submission)``, source-only observations.

Backends return typed data; the generic tools (``lowering``, ``sanitizers``) turn it into evidence,
so rerun commands, comparison and failure classification stay the same for every framework.
"""

from __future__ import annotations

import re
from abc import ABC
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from tools.engine.runsetup import DeviceInfo, RunSetup

if TYPE_CHECKING:
    from reviewer.core.submission import Submission
    from tools.engine.tool import ToolContext
    from tools.engine.harness.case import Case
    from tools.engine.sandbox import CallResult
    from tools.engine.session import ReferenceRun


@dataclass(frozen=True)
class CheckMode:
    """One way of running a case that checks more than the plain run (a sanitizer, an interpreter
    with stricter semantics). Unavailable modes still appear, so their absence is reported."""

    name: str
    title: str
    available: bool = True
    why_not: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    required: bool = True
    """An unavailable required mode leaves its criterion unverified; an optional one (a sanitizer
    that is simply not installed) is reported as information."""


@dataclass(frozen=True)
class Defect:
    """Something a check mode reported besides the outputs (a race, an invalid access)."""

    code: str
    message: str
    line: int | None = None


@dataclass
class ModeRun:
    """What running one case under a ``CheckMode`` produced. ``outputs`` is None when the call failed."""

    call: CallResult
    outputs: Any = None
    defects: list[Defect] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    not_applicable: str = ""
    """Set when the mode turned out not to apply to this kernel (e.g. a GPU-style Pallas kernel
    under the TPU interpreter): reported as information, never as a pass."""


LoweringStatus = Literal["ok", "rejected", "unsupported", "unavailable"]


@dataclass
class Lowered:
    """One kernel compiled (or not) for one target without a device.

    ``rejected``: the compiler refused the kernel (its fault, e.g. a block-shape rule);
    ``unsupported``: the target cannot express this kind of kernel (not the kernel's fault);
    ``unavailable``: the compiler could not be run here (missing toolchain, timeout)."""

    kernel: str
    target: str
    status: LoweringStatus
    intended: bool
    """Whether the kernel is written for this target (its compiler params, the manifest's target)."""
    message: str = ""
    rule: str | None = None
    file: str | None = None
    line: int | None = None
    artifacts: dict[str, str] = field(default_factory=dict)
    """file name -> text (IR, PTX) kept in the run directory."""
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


@dataclass(frozen=True)
class StaticFinding:
    category: str
    message: str
    line: int | None = None
    severity: Literal["info", "warning", "error"] = "warning"


class Backend(ABC):
    name: ClassVar[str]
    #: regexes over the submission's source, matched line by line (re.MULTILINE); a backend with a hit
    #: is a candidate, and among candidates the highest ``priority`` wins, then the most hits
    markers: ClassVar[tuple[str, ...]] = ()
    #: file suffixes that mark a submission as this framework's: each such file counts as one hit
    marker_suffixes: ClassVar[frozenset[str]] = frozenset()
    #: suffixes of this framework's own source files besides Python (read whole, listed in
    #: ``Submission.source_files``)
    source_suffixes: ClassVar[frozenset[str]] = frozenset()
    #: priority among backends with hits, compared before the hit count (a Triton kernel called from
    #: PyTorch is Triton, not torch); built in: torch 0, triton 10, pallas 20, cuda 30, nki 40
    priority: ClassVar[int] = 0
    supports_static_compile: ClassVar[bool] = False
    #: ``lower`` runs only compilers of its own on the submission's files (no sandbox child, nothing of the
    #: session): the lowering tool may start it in a thread at the plan (``Tool.start_apart``)
    lowers_apart: ClassVar[bool] = False
    supports_sanitizer: ClassVar[bool] = False
    #: False for plain PyTorch: a submission in it has no kernel of its own
    custom_kernel: ClassVar[bool] = True
    #: instruments that capture this framework's kernel launches when the nominal case is measured
    launch_instruments: ClassVar[tuple[str, ...]] = ()
    #: what the run-time launch count (Triton launches) says about this framework's kernels:
    #: "counted": every launch is counted, so none counted means no kernel ran; "uncounted": its own
    #: launches are not counted, but launches that are counted are still judged; "not_judged": launch
    #: counts say nothing about its kernels
    launch_count: ClassVar[Literal["counted", "uncounted", "not_judged"]] = "not_judged"
    #: whether a later call that launched nothing, where the first launched kernels, skipped its work
    launches_show_skipped_work: ClassVar[bool] = False
    #: whether the integrity trace observes this framework's work through JAX (``pallas_call``)
    jax_traced: ClassVar[bool] = False
    #: whether its kernels are compiled by the Triton compiler, so the launches the ``triton_launches``
    #: instrument captures can be compiled for GPU targets without a GPU (tools/engine/compilable.py)
    triton_compiled: ClassVar[bool] = False

    def detect(self, source: str, files: Sequence[str] = ()) -> int:
        """Hits for this framework: ``markers`` in ``source`` (the submission file's text), plus one per
        name in ``files`` (the file names in the submission's folder) with one of ``marker_suffixes``."""
        hits = sum(len(re.findall(m, source, flags=re.MULTILINE)) for m in self.markers)
        return hits + sum(1 for f in files if PurePath(f).suffix in self.marker_suffixes)

    # -- run ---------------------------------------------------------------------------------
    def device_for(self, submission: Submission, device: DeviceInfo) -> DeviceInfo:
        """The device this submission's kernels run on when the review was given ``device``: the
        same, unless the kernels are written for hardware that is not it (a TPU kernel on a GPU
        machine runs in the interpreter, as on a CPU)."""
        return device

    def run_setup(self, device: DeviceInfo) -> RunSetup:
        return RunSetup(can_run=True)

    # -- compile / lower ---------------------------------------------------------------------
    def lower(self, ctx: ToolContext) -> list[Lowered] | None:
        """Compile the submission's kernels for their targets without a device; None: no hook."""
        return None

    # -- dynamic checks ----------------------------------------------------------------------
    def check_modes(self, ctx: ToolContext) -> list[CheckMode]:
        return []

    def run_mode(self, ctx: ToolContext, mode: CheckMode, case: Case, ref: ReferenceRun) -> ModeRun:
        raise NotImplementedError(f"backend {self.name!r} has no check mode {mode.name!r}")

    # -- static analysis ---------------------------------------------------------------------
    def static_findings(self, submission: Submission) -> list[StaticFinding]:
        return []
