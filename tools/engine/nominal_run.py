"""The nominal run that off-nominal probes are planned and timed against.

One evaluation of the nominal case (with the ``triton_launches`` instrument for Triton
submissions) gives the submission's input elements, the program instances and constexprs of its
real launches, and its call time. Probes are *planned* in work units counted from the first two
(tools/engine/work_units.py): the same on any machine. The measured time only sets each call's timeout, a
generous backstop: seconds per unit, from the slowest nominal call seen, times the probe's units,
so a hang costs seconds, not the review's whole call limit, and a call that is merely slow on a
busy machine is not called a hang.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tools.engine.tool import Tool, ToolContext
from tools.engine.formats import format_of
from tools.engine.registry import backend_for
from tools.engine.evaluate import Evaluation, evaluate
from tools.engine.facts import NominalChecks
from tools.engine.harness.case import Case
from tools.engine.outcomes import HANG_SLACK, input_elements
from tools.engine.sizes import launch_blocks
from tools.engine.work_units import COMPILED, INTERPRETED, WorkModel, program_factor, programs_of, work_units

# Rationale: below this a call's time is dominated by fixed costs (IPC, file transfer), which do
# not shrink with the input; estimates never go below it.
MIN_CALL_S = 0.05
# Rationale: see NominalRun.fill: programs under a quarter full are a nominal far below its block size.
_FILL = 0.25
# Rationale: a grown configuration may launch hundreds of times the nominal programs (a knob that
# moves the grid onto another dimension: 8 -> 3,315 programs measured); a minute lets such a call
# finish on a busy 2-core machine, and a timeout there is still only unverified.
GROWN_MIN_TIMEOUT_S = 60.0
# Rationale: 16 is past every small special case (1, primes up to 13) and still shows a layout.
MIN_KNOB = 16
# Rationale: long enough for a child restart plus a small interpreted call on a loaded machine.
MIN_TIMEOUT_S = 10.0
# Rationale: compiled Triton specialises on shapes and constexprs, and an autotuned kernel retunes
# for a new shape; that can take tens of seconds on a GPU without anything being stuck.
RECOMPILE_S = 60.0


@dataclass
class NominalRun:
    case: Case
    evaluation: Evaluation
    elements: int
    seconds: float
    launches: list[dict[str, Any]] = field(default_factory=list)
    programs: int = 0
    """program instances the nominal call launched (0: not recorded, e.g. not Triton)"""
    model: WorkModel = INTERPRETED
    """how calls are counted where the kernels run (the interpreter, or compiled on a GPU)"""

    @property
    def ok(self) -> bool:
        return self.evaluation.status == "ok"

    @property
    def nominal_units(self) -> float:
        return work_units(self.programs, self.elements, self.model)

    def units(self, elements: int, knob_ratios: list[float] | None = None) -> float:
        """Work units of a call on ``elements`` input elements whose size knobs changed by
        ``knob_ratios`` (tools/engine/work_units.py): a count, the same on every machine."""
        factor = program_factor(elements / max(self.elements, 1), knob_ratios or [])
        return work_units(self.programs * factor * self.fill(), elements, self.model)

    def fill(self) -> float:
        """How full the nominal programs are: nominal elements over what its programs can hold at the
        largest block size its launches use (1 when they are full or nothing is recorded).

        Rationale: a grid grows with the input only once its programs are full; from a tiny nominal
        (a size-1 test, one program of 8,192 lanes) a linear estimate put 16,385 programs on a
        launch of 3 and skipped every test and benchmark size of a 1-D reduction. A block rounded up to
        a power of two leaves its programs at least half full (a row narrower than BLOCK), and a tile's
        largest side is less than what it holds: only programs less than a quarter full (``_FILL``)
        change the estimate, so ordinary kernels keep the linear one."""
        blocks = launch_blocks(self.launches)
        if not blocks or not self.programs:
            return 1.0
        fill = max(self.elements, 1) / (self.programs * max(blocks))
        return fill if fill < _FILL else 1.0

    def estimate_s(self, units: float) -> float:
        """Seconds a call of ``units`` may take here, scaled from the slowest nominal call measured
        (only for timeouts: never to decide what runs)."""
        return max(MIN_CALL_S, self.seconds * units / max(self.nominal_units, 1e-9))

    def expected_s(self, ctx: ToolContext, estimate: float) -> float:
        """What a call may honestly take: the scaled estimate, plus on a GPU the compile or autotune
        a new shape can trigger (the interpreter compiles nothing)."""
        return estimate + (0.0 if ctx.setup.interpreted else RECOMPILE_S)

    def timeout_s(self, ctx: ToolContext, estimate: float, *, grown: bool = False) -> float:
        """The call's limit: ``HANG_SLACK`` times the estimate; for a configuration larger than any
        measured run (``grown``), whose cost is not bounded by the estimate, at least
        ``GROWN_MIN_TIMEOUT_S``."""
        floor = GROWN_MIN_TIMEOUT_S if grown else MIN_TIMEOUT_S
        return min(ctx.options.limits.call_timeout_s,
                   max(floor, HANG_SLACK * estimate + 5.0) + (0.0 if ctx.setup.interpreted else RECOMPILE_S))


def prerequisites_failed(ctx: ToolContext, tool: Tool, check: str) -> bool:
    """True when an off-nominal probe tool should not run: builds did not pass (the rubric already
    says "not assessed"), or correctness failed (recorded here as an unverified item)."""
    if ctx.builds_failed():
        return True
    nominal = ctx.facts.get(NominalChecks)
    if nominal is not None and nominal.failed:
        ctx.add_evidence(tool, outcome="unverified", defect="not_assessed",
                         reason="correctness failed", check=check, rerun=ctx.rerun(tool.name),
                         summary="not assessed: the submission already fails on its nominal inputs")
        return True
    return False


@dataclass(frozen=True)
class NominalRuns:
    """The nominal runs measured so far, by purpose: tools that measure for the same purpose
    (generality and numerics both use ``probes``) share one run."""
    by_purpose: dict[str, NominalRun]


def nominal_case(ctx: ToolContext, purpose: str) -> Case:
    """The first nominal case under a seed of the run for ``purpose``."""
    nc = ctx.submission.nominal_cases[0]
    seed = ctx.seeds(1, purpose)[0]
    params = dict(nc.params)
    if "seed" in params:
        params["seed"] = seed
    return Case(id=f"{purpose}-nominal", seed=seed, params=params, dtype=ctx.submission.dtype,
                label=f"{nc.label or 'nominal'}, seed {seed}")


def instruments_for(ctx: ToolContext) -> list[str]:
    return list(backend_for(ctx.submission.framework).launch_instruments)


def measure(ctx: ToolContext, purpose: str, *, extra_instruments: list[str] | None = None,
            options: dict[str, dict[str, Any]] | None = None) -> NominalRun:
    """Run the nominal case once (memoised per review and purpose in the fact ``NominalRuns``);
    ``extra_instruments`` (with their ``options``) observe that first run too."""
    known = ctx.facts.get(NominalRuns)
    if known is not None and purpose in known.by_purpose:
        return known.by_purpose[purpose]
    case = nominal_case(ctx, purpose)
    passed = nominal.passed if (nominal := ctx.facts.get(NominalChecks)) is not None else ()
    seen = [c.duration_s for c in passed if c.duration_s]
    # Rationale: correctness already timed nominal calls; a nominal call ten times slower is stuck.
    expected = max(seen) + (0.0 if ctx.setup.interpreted else RECOMPILE_S) if seen else None
    timeout = None if expected is None else min(ctx.options.limits.call_timeout_s,
                                                 max(MIN_TIMEOUT_S, HANG_SLACK * expected + 5.0))
    ev = evaluate(ctx, case, instruments=instruments_for(ctx) + list(extra_instruments or []), want_budget=True,
                  timeout=timeout, expected_s=expected, options=options)
    launches = launches_of(ev)

    def sizes(params: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in params.items() if k != "seed"}

    # Rationale: the slowest same-sized nominal call seen is the time per unit timeouts scale from:
    # generous on a machine whose speed varies, and never a basis for what runs.
    same = [c.duration_s for c in passed if c.duration_s
            and sizes((c.case or {}).get("params") or {}) == sizes(case.params)]
    base = NominalRun(case=case, evaluation=ev, elements=input_elements(ev.ref.meta) if ev.ref.ok else 0,
                    seconds=max([ev.duration_s, *same]), launches=launches, programs=programs_of(launches),
                    model=INTERPRETED if ctx.setup.interpreted or not ctx.device.has_gpu else COMPILED)
    ctx.facts.put(NominalRuns({**(known.by_purpose if known is not None else {}), purpose: base}))
    return base


def size_knobs_of(ctx: ToolContext, params: dict[str, Any]) -> dict[str, int]:
    """The size knobs of the submission's format with their nominal values (tools/engine/sizes.py)."""
    return format_of(ctx.submission).size_knobs(ctx.submission, ctx.source.reference, params)


def knob_ratios(nominal: dict[str, int], chosen: dict[str, Any]) -> list[float]:
    """v/n for every size knob ``chosen`` changes from its ``nominal`` value."""
    return [chosen[k] / n for k, n in nominal.items()
            if k in chosen and isinstance(chosen[k], int) and n > 0 and chosen[k] != n]


def affordable_params(ctx: ToolContext, base: NominalRun, cap_units: float) -> dict[str, Any]:
    """The nominal params, or, when one nominal call counts more than ``cap_units`` work units,
    the size knobs halved (largest first) until it fits: probes that need many calls run there.
    Decided by counting (tools/engine/work_units.py), so the reduced size is the same on every machine."""
    from tools.engine.sizes import scaled_elements

    params = dict(base.case.params)
    if base.nominal_units <= cap_units:
        return params
    nominal = size_knobs_of(ctx, params)
    chosen = dict(nominal)

    def units(c: dict[str, int]) -> float:
        return base.units(scaled_elements(base.elements, nominal, c), knob_ratios(nominal, c))

    # Rationale: a probe on a degenerate size shows nothing (a 1x1 input has no layout): no knob is
    # halved below MIN_KNOB (or its nominal value, if smaller), whatever the cap.
    floor = {k: min(v, MIN_KNOB) for k, v in nominal.items()}
    while chosen and units(chosen) > cap_units:
        halvable = [n for n in chosen if chosen[n] // 2 >= floor[n]]
        if not halvable:
            break
        k = max(halvable, key=lambda n: chosen[n])
        chosen[k] = chosen[k] // 2
    return {**params, **{k: v for k, v in chosen.items() if v != nominal[k]}}


def launches_of(ev: Evaluation) -> list[dict[str, Any]]:
    if ev.run is None or not ev.run.ok:
        return []
    return list(((ev.run.meta.get("instruments") or {}).get("triton_launches") or {}).get("launches") or [])


# Rationale: the backstop waits ten times what the planned work is measured to take here, so a busy
# machine (whose nominal call was measured as slow too) gets proportionally longer before anything
# is cut; the fixed floor covers fast nominal calls.
BACKSTOP_SLACK = 10.0


def backstop_s(floor_s: float, base: NominalRun, planned_units: float, budget: float) -> float:
    """Seconds after which a tool stops starting calls (what it then cuts is unverified)."""
    return max(floor_s * max(1.0, budget), BACKSTOP_SLACK * base.estimate_s(planned_units))
