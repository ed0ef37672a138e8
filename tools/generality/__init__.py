"""generality: does the submission stay correct off its nominal shape, for non-contiguous inputs, for
the other dtypes its reference accepts and for other values of the task's float hyper-parameters?

Each axis (tools/generality/axes.py) is searched with hypothesis (tools/generality/search.py)
within a work budget counted from a nominal run (tools/engine/nominal_run.py, tools/engine/work_units.py): the seed and
the kernel decide what runs, not the machine's speed; layouts and dtypes all run first at a
reduced size (the init-args axis after them), then sizes. An axis passes only when at least one of
its configurations ran, and its summary counts what ran and names what was not tried. A configuration passes when
its outputs are correct by the rule the correctness tool uses; it is a *valid rejection* when the
submission refuses it with a raise/assert of its own file (tools/engine/outcomes.py); a silent wrong
answer, a crash inside Triton/PyTorch or a hang is a failure. Each failing axis yields one item
with the smallest failing configuration found, measured facts on why (tools/generality/explain.py)
and a ``kreview rerun`` command that reruns exactly that configuration.
"""

from __future__ import annotations

import re
import time
from typing import Any, ClassVar

from reviewer.core.models import SourceSpan
from tools.engine.results import GeneralityResult
from tools.engine.tool import Tool, ToolContext
from tools.engine.nominal_run import (
    NominalRun,
    affordable_params,
    backstop_s,
    instruments_for,
    knob_ratios,
    launches_of,
    measure,
    prerequisites_failed,
    size_knobs_of,
)
from tools.engine.contract import outside_contract
from tools.engine.formats import format_of
from tools.engine.evaluate import Evaluation, evaluate, tolerance_config
import tools.generality.explain as explain
from tools.generality.axes import Axis, dtypes_axis, init_args_axis, layouts_axis, sizes_axis
from tools.generality.branches import INPUT_KINDS, HostCoverage, UntakenSide, observed_coverage, unreached
from tools.generality.paths import crossing_values, multi_dimensional
from tools.generality.device_paths import device_branches
import tools.generality.large_grid as LG
from tools.generality.int32_index import int32_index_products
from tools.generality.growth import InputGrowth
from tools.generality.search import Search, SearchResult, Trial
from tools.engine.sizes import launch_blocks, scaled_elements, source_blocks
from tools.engine.harness.case import Case
from tools.engine.outcomes import classify_failure, deliberate_rejection, input_elements, refuses_dtype
from tools.engine.work_units import CALL_UNITS, WorkBudget


def _inner_frame(ev: Evaluation) -> str | None:
    """Where an exception was raised, when that is inside Triton or PyTorch rather than the submission."""
    if ev.run is None or ev.run.call.error is None:
        return None
    frames = re.findall(r'File "([^"]+)", line (\d+)', ev.run.call.error.get("traceback") or "")
    if not frames:
        return None
    path, line = frames[-1]
    for lib in ("triton", "torch", "numpy"):
        if f"/{lib}/" in path:
            return f"raised inside {lib} ({path.split(f'/{lib}/', 1)[1]}:{line})"
    return None


def _describe(case: Case) -> str:
    parts = [", ".join(f"{k}={v}" for k, v in sorted(case.params.items())) or "nominal sizes"]
    parts += [t.kind + (f" {t.args}" if t.args else "") for t in case.transforms]
    if case.init_args:
        parts.append("get_init_inputs() " + ", ".join(f"[{i}]={v!r}" for i, v in sorted(case.init_args.items())))
    if case.dtype:
        parts.append(f"dtype {case.dtype}")
    return "; ".join(parts)


class GeneralityTool(Tool):
    name = "generality"
    result_model = GeneralityResult
    criteria = ("generality",)
    after = ("correctness",)
    replays_cases = True
    description = ("off-nominal sizes, non-contiguous layouts, other dtypes and other values of float "
                   "hyper-parameters (hypothesis search)")

    # Rationale: work units (tools/engine/work_units.py, ~1 ms each) the whole tool plans with --budget 1: about
    # 25 s of interpreted calls on a 2-core machine, so a level-1 review stays near a minute.
    budget_units: ClassVar[float] = 25000.0
    # Rationale: one configuration may cost a few nominal calls, not the whole budget.
    case_cap_units: ClassVar[float] = 4000.0
    # Rationale: a wrapper path only the task's benchmark sizes reach is taken only past its
    # threshold, so its smallest case is large by construction; it gets a larger per-case cap, still
    # counted against the same work budget (issue: such paths were skipped and the tail bug accepted).
    path_cap_units: ClassVar[float] = 16000.0
    # Rationale: sizes aimed at a host branch no configuration took (a threshold in the wrapper)
    # get their own counted allowance, twice this per untaken side, so a search that spent the budget,
    # or the sizes aimed at another side, do not leave a branch unprobed; each such size is capped
    # like a benchmark-size path.
    branch_units: ClassVar[float] = 16000.0
    # Rationale: layouts and dtypes are run first, all of them, at a size where together they use
    # at most this share of the budget; sizes get the rest.
    first_share: ClassVar[float] = 0.4
    # Rationale: a backstop only, ten times what the planned work takes on an idle machine; what it
    # cuts is reported unverified with the configurations not run.
    backstop_s: ClassVar[float] = 250.0
    # Rationale: inputs beyond this many elements are memory- and time-heavy under an interpreter.
    max_elements: ClassVar[int] = 1 << 23
    max_examples: ClassVar[dict[str, int]] = {"sizes": 24, "layouts": 10, "dtypes": 6, "init_args": 2}
    # Rationale: the grid crossing 65,535 programs (tools/generality/large_grid.py) has its own
    # allowance, outside the search's budget and not reduced by a --budget below 1: a windowed call
    # on a ~1M-element input counts ~2,600 units, and a search that spent its budget must not
    # leave it out. Large enough for one crossing at the memory cap (8M elements: ~17,000 units), so
    # a crossing is left out for memory (info) or runs, never "not tried" on a correct row kernel
    # whose other sizes are already small (measured: a 262,148-row layer norm at 8,762 units was cut
    # at 8,000 and turned generality unverified).
    grid_units: ClassVar[float] = 18000.0

    def applies(self, ctx: ToolContext) -> str | None:
        return None if ctx.setup.can_run else ctx.setup.why_not

    # -- run -------------------------------------------------------------------------------
    def run(self, ctx: ToolContext) -> None:
        if prerequisites_failed(ctx, self, "generality search"):
            return
        t0 = time.monotonic()
        files = ctx.source.python_files()
        cov = HostCoverage(options={"host_coverage": {"submission_file": ctx.submission.submission_file,
                                                      "files": files}}) if files else None
        base = measure(ctx, "probes", extra_instruments=["host_coverage"] if cov else None,
                       options=cov.options if cov else None)
        if not base.ok:
            self._report_case(ctx, base.evaluation, "nominal inputs with the generality seed", self._blocks(ctx, base))
            return
        blocks = self._blocks(ctx, base)
        self._device_paths(ctx)
        self._int32_index(ctx)
        if cov is not None:
            cov.add(observed_coverage(base.evaluation))
        budget = WorkBudget(self.budget_units * ctx.options.budget)
        deadline = t0 + backstop_s(self.backstop_s, base, budget.total, ctx.options.budget)
        # Rationale: layouts and dtypes are a handful of configurations each and catch common
        # defects (contiguity): every one of them runs first, at a size reduced until all fit in
        # their share of the budget; sizes get what remains, since hypothesis can use any amount.
        probe = affordable_params(ctx, base, self.case_cap_units)
        firsts = self._first_axes(ctx, base, probe)
        n_first = sum(len(a.dims[0].values) - 1 for a in firsts)
        if n_first:
            cap = max(min(self.case_cap_units, self.first_share * budget.total / n_first), 2 * CALL_UNITS)
            params = affordable_params(ctx, base, cap)
            firsts = self._first_axes(ctx, base, params)
        bases: list[Trial] = []
        for axis in firsts:
            self._search(ctx, base, axis, blocks, budget, deadline, cov, bases)
        fmt = format_of(ctx.submission)
        if not fmt.casts_dtype:
            ctx.add_evidence(self, outcome="info", summary=f"dtypes: not applicable, the task's {fmt.generator} "
                             "fixes the dtype", check="dtype search", rerun=self._rerun(ctx))
        sizes = sizes_axis(ctx, base, blocks)
        if sizes is None:
            ctx.add_evidence(self, outcome="info", summary="sizes: no size knob to vary (no module-level integer "
                             "constant read by get_inputs/get_init_inputs, or no integer kwarg)",
                             check="size search", rerun=self._rerun(ctx))
        else:
            self._search(ctx, base, sizes, blocks, budget, deadline, cov)
        if cov is not None:
            self._report_branches(ctx, base, blocks, cov, budget)
        self._large_grid(ctx, base)

    @staticmethod
    def _first_axes(ctx: ToolContext, base: NominalRun, params: dict[str, Any]) -> list[Axis]:
        """The axes run first, all of their configurations, at the probe size ``params``.
        Rationale: the init-args axis (one or two cases) comes last, so the layouts and dtypes
        searches run exactly as they did before it existed on tasks without float hyper-parameters."""
        axes = (layouts_axis(ctx, base, params), dtypes_axis(ctx, base, params), init_args_axis(ctx, base, params))
        return [a for a in axes if a is not None]

    # -- grids past 65,535 programs ---------------------------------------------------------
    def _large_grid(self, ctx: ToolContext, base: NominalRun) -> None:
        """A configuration crossing 65,535 programs in the grid dimension a size drives
        (tools/generality/large_grid.py); what could not be tried is named."""
        if not base.launches:
            return  # no recorded grid (not Triton): nothing to scale
        nominal = size_knobs_of(ctx, dict(base.case.params))
        if not nominal:
            return
        check = f"generality: a grid past {LG.THRESHOLD - 1:,} programs in the dimension a size drives"
        candidates, left_out = LG.crossings(base.launches, nominal, base.elements, self.max_elements)
        allowance = self.grid_units * max(1.0, ctx.options.budget)
        spent, notes = 0.0, list(left_out)
        for c in candidates:
            if spent + c.units > allowance:
                notes.append(f"{c.knob}={c.params[c.knob]}: {c.units:.0f} work units, over the probe's {allowance:.0f}")
                continue
            changed = {k: v for k, v in c.params.items() if v != nominal[k]}
            label = ", ".join(f"{k}={v}" for k, v in sorted(changed.items()))
            case = base.case.model_copy(update={"id": "generality-large-grid", "label": label,
                                                "params": {**base.case.params, **changed}})
            spent += c.units
            if self._large_grid_case(ctx, case, c, notes):
                return
        how = "; ".join(notes[:4]) if notes else "no grid dimension is driven by a size knob"
        uncrossed = [n for n in notes if n.startswith("no launch crossed") or "no launch crossed" in n]
        if uncrossed:
            # Rationale: the crossing configurations ran (every program, since no dimension passed the
            # threshold): the grid does not grow past 65,535 with these sizes (a persistent grid).
            ctx.add_evidence(self, outcome="info", summary=f"no grid dimension reached 65,536 programs at the "
                             f"crossing sizes: {'; '.join(uncrossed[:3])}", check=check,
                             config={"grid_units": allowance, "spent": round(spent, 1)},
                             result={"not_crossed": notes}, rerun=self._rerun(ctx))
            return
        if candidates or left_out:
            # Rationale: a crossing that the cost model or the reference ruled out was not run: no pass.
            ctx.add_evidence(self, outcome="unverified" if candidates else "info",
                             defect="large_grid_not_tried" if candidates else None,
                             reason="grid over 65,535 programs not tried" if candidates else None,
                             summary=f"grid over 65,535 programs not tried: {how}", check=check,
                             config={"grid_units": allowance, "spent": round(spent, 1)},
                             result={"not_tried": notes}, rerun=self._rerun(ctx))

    def _large_grid_case(self, ctx: ToolContext, case: Case, crossing: LG.Crossing | None,
                         notes: list[str]) -> bool:
        """Run one crossing configuration (windowed under the interpreter); True when it decided."""
        check = f"generality: a grid past {LG.THRESHOLD - 1:,} programs in the dimension a size drives"
        if not case.label:  # a rerun's case carries no label
            case = case.model_copy(update={"label": ", ".join(f"{k}={v}" for k, v in sorted(case.params.items())
                                                              if k != "seed")})
        ref = ctx.session.reference(case)
        if not ref.ok:
            notes.append(f"{case.label}: the reference fails there ({ref.call.failure_text()[:120]})")
            return False
        windowed = ctx.setup.interpreted
        instruments = instruments_for(ctx) + (["grid_window"] if windowed else [])
        run = ctx.session.run_submission(case, ref, instruments=instruments, keep_inputs_after=False,
                                         timeout=max(120.0, ctx.options.limits.call_timeout_s))
        common: dict[str, Any] = {"check": check, "inputs": {"case": case.model_dump(),
                                                             "tensors": ref.meta.get("inputs", [])},
                                  "config": {"threshold": LG.THRESHOLD, "windowed": windowed,
                                             "crossing": crossing.__dict__ if crossing else None},
                                  "rerun": ctx.rerun(self.name, case), "duration_s": run.call.duration_s}
        if not run.ok:
            if run.loaded and (why := deliberate_rejection(run.call, ctx.submission.submission_file, ctx.source.text)):
                ctx.add_evidence(self, outcome="info", summary=f"{case.label}: refused by the submission ({why[:200]})",
                                 **common)
                return True
            c = classify_failure(run.call, interpreted=windowed, input_numel=input_elements(ref.meta),
                                 on_cpu=not ctx.device.has_gpu, stage=f"the call on {case.label}",
                                 estimate_is_bound=False)
            if c.outcome == "fail" and c.defect in ("grid_limit", "exception", "crash"):
                ctx.add_evidence(self, outcome="fail", defect=c.defect, summary=f"{case.label}: {c.reason[:500]}",
                                 result={"error": run.call.failure_text()[:1000]}, **common)
                return True
            notes.append(f"{case.label}: {c.reason[:200]}")
            return False
        if not windowed:
            ev = evaluate(ctx, case, instruments=instruments_for(ctx), allow_rejection=True,
                          timeout=max(120.0, ctx.options.limits.call_timeout_s), estimate_is_bound=False)
            self._report_case(ctx, ev, case.label or _describe(case), source_blocks(ctx.source.text))
            return True
        data = (run.meta.get("instruments") or {}).get("grid_window") or {}
        verdict = LG.judge_window(data)
        if verdict.outcome == "not_crossed":
            notes.append(f"{case.label}: {verdict.summary}")
            return False
        ctx.add_evidence(self, outcome=verdict.outcome, defect=verdict.defect,
                         summary=f"{case.label}: {verdict.summary}", result=verdict.result, **common)
        return True

    def _int32_index(self, ctx: ToolContext) -> None:
        """int32 address products from a program id (tools/generality/int32_index.py): a finding each,
        never a verdict (the sizes where they wrap, past 2^31 elements, cannot be run here)."""
        for p in int32_index_products(ctx.source.text)[:6]:
            ctx.add_finding(origin="tool", category="int32_index_overflow", severity="warning", message=p.message(),
                            spans=ctx.submission_span(p.line))

    def _device_paths(self, ctx: ToolContext) -> None:
        """Device-dependent host branches: unverified without a GPU (tools/generality/device_paths.py)."""
        found = device_branches(ctx.source.text)
        if not found or ctx.device.has_gpu:
            return
        spans = [s for d in found[:5] for s in ctx.submission_span(d.line, d.end_line)]
        lines = "; ".join(f"line {d.line}: {d.condition}" for d in found[:5])
        ctx.add_evidence(self, outcome="unverified", defect="device_dependent_path",
                         reason="the host code branches on the device; a CPU-only review runs one side only",
                         summary=f"the host code takes a device-dependent path ({lines}); this CPU-only review ran "
                                 f"only the path a CPU takes, so what runs on a GPU is not checked here (a GPU run "
                                 f"or a human must look at it)",
                         check="device-dependent branches in the host code", spans=spans,
                         result={"branches": [d.__dict__ for d in found]}, rerun=self._rerun(ctx))

    def _rerun(self, ctx: ToolContext, case: Case | None = None) -> str:
        return ctx.rerun(self.name, case)

    def _blocks(self, ctx: ToolContext, base: NominalRun) -> set[int]:
        return launch_blocks(base.launches) | source_blocks(ctx.source.text)

    # -- one axis --------------------------------------------------------------------------
    def _trial_fn(self, ctx: ToolContext, base: NominalRun, axis: Axis, budget: WorkBudget,
                  cov: HostCoverage | None = None, cap_units: float | None = None):
        nominal = size_knobs_of(ctx, dict(base.case.params)) if axis.name == "sizes" else {}
        path_keys = {Search.key(c) for path in axis.paths for c in path["configs"]}
        growth = InputGrowth(nominal, base.elements, axis.make_case, ctx.session.reference) if nominal else None

        def trial(cfg: dict[str, Any]) -> Trial:
            case = axis.make_case(cfg)
            cap = cap_units or (self.path_cap_units if Search.key(cfg) in path_keys else self.case_cap_units)
            ratios = knob_ratios(nominal, cfg) if nominal else None
            if axis.name == "sizes":
                guess = scaled_elements(base.elements, axis.base, {k: v for k, v in cfg.items()})
                if guess > 4 * self.max_elements:
                    return Trial(cfg, "skipped", note=f"about {guess} input elements, over the memory budget")
                # Rationale: a lower bound on the inputs from their measured growth refuses, without
                # building them, what the exact count below would refuse (tools/generality/growth.py)
                least = growth.at(cfg) if growth is not None else None
                if least is not None:
                    units = base.units(least, ratios)
                    if least > self.max_elements or units > cap:
                        return Trial(cfg, "skipped", note=f"at least {least} input elements, {units:.0f} work units: "
                                                          f"over the per-case cap of {cap:.0f}")
            ref = ctx.session.reference(case)
            if not ref.ok:
                return Trial(cfg, "invalid", note=f"the reference rejects it: {ref.call.failure_text()[:160]}")
            n = input_elements(ref.meta)
            units = base.units(n, ratios)
            if n > self.max_elements or units > cap:
                return Trial(cfg, "skipped", note=f"{n} input elements, {units:.0f} work units: over the per-case "
                                                  f"cap of {cap:.0f}")
            if not budget.affords(units):
                budget.cut.append(axis.describe(cfg))
                return Trial(cfg, "skipped", note=f"{units:.0f} work units, over what the work budget has left "
                                                  f"({budget.left:.0f} of {budget.total:.0f}; --budget raises it)")
            budget.spend(units)
            est = base.estimate_s(units)
            # Rationale: hangs are hangs: only a configuration no larger than the measured nominal run
            # in every size (its program count cannot exceed what was measured) gets a hang verdict
            # from a timeout; a grown one that times out is too slow to tell.
            grown = n > base.elements or any(r > 1 for r in (ratios or []))
            ev = evaluate(ctx, case, instruments=instruments_for(ctx) + (["host_coverage"] if cov else []),
                          timeout=base.timeout_s(ctx, est, grown=grown), expected_s=base.expected_s(ctx, est),
                          allow_rejection=True, estimate_is_bound=not grown, options=cov.options if cov else None)
            if cov is not None:
                cov.add(observed_coverage(ev))
            return self._trial_of(cfg, ev)

        return trial

    @staticmethod
    def _trial_of(cfg: dict[str, Any], ev: Evaluation) -> Trial:
        status = ev.status
        if status == "reference_failed":
            return Trial(cfg, "invalid", payload=ev)
        if status == "rejected":
            return Trial(cfg, "rejected", note=ev.rejection or "", payload=ev)
        costly = ev.run is not None and ev.run.call.crash is not None
        if status == "failed":
            assert ev.classified is not None
            verdict = "inconclusive" if ev.classified.outcome == "unverified" else "fail"
            return Trial(cfg, verdict, note=ev.classified.reason, costly=costly, payload=ev)
        if status == "undecided":
            assert ev.judgement is not None
            return Trial(cfg, "inconclusive", note=ev.judgement.summary, payload=ev)
        return Trial(cfg, "pass" if status == "ok" else "fail", payload=ev)

    def _search(self, ctx: ToolContext, base: NominalRun, axis: Axis, blocks: set[int], budget: WorkBudget,
                deadline: float, cov: HostCoverage | None = None, bases: list[Trial] | None = None) -> None:
        search = Search(axis.dims, self._trial_fn(ctx, base, axis, budget, cov),
                        rng_seed=ctx.seeds(1, f"generality-{axis.name}")[0],
                        max_examples=self.max_examples.get(axis.name, 12), deadline=deadline)
        if axis.make_case(axis.base).params == base.case.params:
            search.seed_trial(axis.base, self._trial_of(axis.base, base.evaluation))
        elif axis.name == "init_args" and bases:
            # Rationale: the base of the init-args axis is the case an earlier axis already ran as its
            # own base (same sizes, contiguous, native dtype, nominal hyper-parameters): reused, so the
            # axis costs only its one or two varied cases.
            same = [t for t in bases if isinstance(t.payload, Evaluation)
                    and ctx.session.case_key(t.payload.case) == ctx.session.case_key(axis.make_case(axis.base))]
            if same:
                search.seed_trial(axis.base, Trial(axis.base, same[0].verdict, same[0].note, payload=same[0].payload))
        result = search.run(extra=axis.extra)
        if (first := search.cache.get(Search.key(axis.base))) is not None:
            axis.base_verdict = first.verdict
            if bases is not None:
                bases.append(first)
        aimed: list[dict[str, Any]] = []
        if axis.name == "sizes" and cov is not None and result.failure is None and not result.backstop:
            aimed = self._aim_at_branches(ctx, base, axis, search, result, cov)
        if result.failure is not None and axis.name == "sizes":
            self._characterize(search, axis, result)
        planned = search.planned(axis.extra)
        known = {Search.key(c) for c in planned}
        planned += [c for c in aimed if Search.key(c) not in known]
        self._report_axis(ctx, base, axis, result, blocks, planned, budget, cov)

    def _paths(self, ctx: ToolContext, base: NominalRun, axis: Axis, result: SearchResult, blocks: set[int],
               search_rec: dict[str, Any], cov: HostCoverage | None = None) -> list[dict[str, Any]]:
        """Which size-dependent wrapper paths (reached by the task's benchmark sizes) were run; an
        unverified item names each one that was not (tools/generality/paths.py)."""
        by_config = {repr(sorted(t.config.items())): t for t in result.trials}
        # Rationale: a size past the threshold is only meant to take the path; where host coverage ran,
        # the path ran only if coverage saw its condition's first side taken (a square-root size of a
        # 1-D input, or a threshold on another quantity, never does).
        untaken = set()
        if cov is not None and cov.arcs:
            untaken = {(s.file, s.line) for s in self._unreached(ctx, base, cov)[0]
                       if s.side in ("true", "body")}
        out = []
        for path in axis.paths:
            trials = [by_config.get(repr(sorted(c.items()))) for c in path["configs"]]
            ran = [t for t in trials if t is not None and t.verdict in ("pass", "fail", "rejected")]
            missed = bool(ran) and (ctx.submission.submission_file, path["line"]) in untaken and \
                not any(t.verdict == "fail" for t in ran)
            if missed:
                ran = []
            rec = {k: path[k] for k in ("line", "condition", "threshold")}
            rec["run_at"] = [axis.describe(t.config) for t in ran]

            def why_not(t: Trial | None) -> str:
                if t is None:
                    return f"not reached ({result.stopped or 'search ended'})"
                if missed and t.verdict in self._RAN:
                    return f"it ran, but host coverage never saw `{path['condition']}` taken"
                return t.note

            rec["not_run"] = [{"config": axis.describe(c), "why": why_not(t)}
                              for c, t in zip(path["configs"], trials, strict=True) if t not in ran]
            out.append(rec)
            if ran:
                continue
            why = rec["not_run"][0]["why"] if rec["not_run"] else "not run"
            ctx.add_evidence(self, outcome="unverified", defect="path_not_run", reason=why[:300],
                             summary=(f"sizes: the wrapper's path when `{path['condition']}` "
                                      f"({ctx.submission.submission_file}:{path['line']}), which the task's benchmark "
                                      f"sizes reach, was not run: {why[:200]}"),
                             check="generality search over sizes: paths only benchmark sizes reach",
                             config=self._config(ctx, base, blocks), result={"path": rec, "search": search_rec},
                             spans=ctx.submission_span(path["line"]), rerun=ctx.rerun(self.name))
        return out

    # -- host branches -------------------------------------------------------------------
    def _unreached(self, ctx: ToolContext, base: NominalRun, cov: HostCoverage) -> tuple[list[UntakenSide], int, int]:
        knobs = set(size_knobs_of(ctx, dict(base.case.params)))
        fixed = format_of(ctx.submission).generator is not None
        sides: list[UntakenSide] = []
        total = taken = 0
        for rel in ctx.source.python_files():
            s, t, k = unreached(rel, ctx.source.file(rel), cov.arcs.get(rel, set()), knobs=knobs, contract_fixed=fixed)
            sides += s
            total += t
            taken += k
        return sides, total, taken

    def _aim_at_branches(self, ctx: ToolContext, base: NominalRun, axis: Axis, search: Search, result: SearchResult,
                         cov: HostCoverage) -> list[dict[str, Any]]:
        """Sizes on each side of the thresholds in conditions no configuration took, cheapest first,
        within their own counted allowance; stops at the first failure (reported as the sizes
        failure). Returns the configurations planned."""
        sides = [s for s in self._unreached(ctx, base, cov)[0] if s.kind == "threshold"]
        nominal = axis.base
        # Rationale: a size condition is monotone in each size, and no configuration run took the
        # side sought, so a value between two values already run cannot take it either: only values
        # outside the range run so far are worth their cost.
        ran = [t.config for t in search.order if t.verdict in self._RAN] + [nominal]
        span = {k: (min(c[k] for c in ran), max(c[k] for c in ran)) for k in nominal}
        plan: dict[str, tuple[float, dict[str, Any], set[tuple[str, int, int]]]] = {}
        square = multi_dimensional(base.evaluation.ref.meta.get("inputs", []))
        for side in sides:
            for t in side.thresholds:
                for knob in sorted(nominal):
                    for v in crossing_values(t, square):
                        cfg = {**nominal, knob: v}
                        if v < 1 or span[knob][0] <= v <= span[knob][1]:
                            continue
                        units = base.units(scaled_elements(base.elements, nominal, cfg), knob_ratios(nominal, cfg))
                        entry = plan.setdefault(Search.key(cfg), (units, cfg, set()))
                        entry[2].add(side.key)
        if not plan:
            return []
        ordered = sorted(plan.values(), key=lambda e: (e[0], Search.key(e[1])))
        # Rationale: each untaken side has an allowance of its own, not shrunk by a budget below 1: the
        # cheapest sizes on both sides of every threshold (the comparison's direction is not read, so a
        # threshold's value and the next may both be needed) run whatever the sizes aimed at other sides
        # spent; a size that serves several sides is charged to the one with the most left.
        allowances = {s.key: WorkBudget(2 * self.branch_units * max(1.0, ctx.options.budget)) for s in sides}
        trial_fns = {k: self._trial_fn(ctx, base, axis, b, cov, cap_units=self.path_cap_units)
                     for k, b in allowances.items()}
        open_keys = {s.key for s in sides}
        for units, cfg, keys in ordered:
            if not keys & open_keys:
                continue
            charged = max(sorted(keys & open_keys), key=lambda k: allowances[k].left)
            search.trial_fn = trial_fns[charged]
            if units > self.path_cap_units:
                # the same cost model the trial applies, without building inputs that cannot run
                trial = Trial(cfg, "skipped", note=f"about {units:.0f} work units, over the per-case cap of "
                                                   f"{self.path_cap_units:.0f}")
            else:
                cached = search.cache.get(Search.key(cfg))
                if cached is not None and cached.verdict == "skipped":
                    # skipped by the search's budget: this allowance may afford it
                    del search.cache[Search.key(cfg)]
                    search.order = [t for t in search.order if t is not cached]
                trial = search.trial(cfg)
            for key in keys & open_keys:
                cov.aimed.setdefault(key, []).append({"config": axis.describe(cfg), "verdict": trial.verdict,
                                                      "note": trial.note[:160]})
            if trial.verdict == "fail":
                result.failure, result.shrunk = trial, False
                named = [s for s in sides if s.key in keys & open_keys]
                result.aimed = ("found by a size aimed at the host branch " + "; ".join(s.describe() for s in named[:2])
                                + ", which no other configuration took")
                break
            open_keys &= {s.key for s in self._unreached(ctx, base, cov)[0]}
        result.trials = list(search.order)
        result.unrun, result.unrun_configs = search.unrun, list(search.unrun_configs)
        return [cfg for _u, cfg, _k in ordered]

    def _report_branches(self, ctx: ToolContext, base: NominalRun, blocks: set[int], cov: HostCoverage,
                         budget: WorkBudget) -> None:
        """Every branch of the host code is exercised or reported: a side depending on the inputs
        that no configuration took leaves generality unverified, naming it and what was tried."""
        common: dict[str, Any] = {"check": "host-code branch coverage over every generality configuration",
                                  "config": self._config(ctx, base, blocks, budget), "rerun": self._rerun(ctx)}
        if not cov.arcs:
            ctx.add_evidence(self, outcome="unverified", defect="coverage_unavailable",
                             reason="; ".join(cov.errors) or "no arc of the submission's files was recorded",
                             summary="host code: which branches ran could not be measured "
                                     f"({'; '.join(cov.errors)[:200] or 'no data from the child'})",
                             result={"calls": cov.calls, "errors": cov.errors}, **common)
            return
        sides, total, taken = self._unreached(ctx, base, cov)
        records = [{**s.record(), "tried": cov.aimed.get(s.key, [])} for s in sides]
        result = {"calls": cov.calls, "branch_sides": total, "taken": taken, "unreached": records,
                  "errors": cov.errors}
        blocking = [s for s in sides if s.kind in INPUT_KINDS]
        others = [s for s in sides if s.kind not in INPUT_KINDS]
        head = f"host code: {taken} of {total} branch sides taken over {cov.calls} calls"
        if blocking:
            named = []
            for s in blocking[:5]:
                tried = cov.aimed.get(s.key, [])
                if tried:
                    ran = [t["config"] for t in tried if t["verdict"] in self._RAN]
                    cut = [f"{t['config']} ({t['note'][:90]})" for t in tried if t["verdict"] not in self._RAN]
                    what = (f"sizes run that did not take it: {', '.join(ran[:4])}" if ran else "") + \
                           ("; " if ran and cut else "") + (f"not run: {'; '.join(cut[:3])}" if cut else "")
                    named.append(f"{s.describe()}; {what}")
                elif s.kind == "threshold":
                    named.append(f"{s.describe()}, no size knob to probe it with")
                else:
                    named.append(f"{s.describe()}, no configuration run reached it")
            more = f"; and {len(blocking) - 5} more" if len(blocking) > 5 else ""
            spans = [sp for s in blocking[:5] if s.file == ctx.submission.submission_file
                     for sp in ctx.submission_span(s.line)]
            ctx.add_evidence(self, outcome="unverified", defect="branch_not_run",
                             reason=f"{len(blocking)} branch side(s) of the host code that depend on the inputs ran "
                                    f"in no configuration",
                             summary=f"{head}; not run, so not checked: {'; '.join(named)}{more}"[:1500],
                             result=result, spans=spans, **common)
            return
        tail = ""
        if others:
            tail = "; not taken, none a path valid inputs of this task take: " + "; ".join(
                f"{s.describe()} ({s.reason})" for s in others[:6]) + ("; ..." if len(others) > 6 else "")
        ctx.add_evidence(self, outcome="info", summary=f"{head}{tail}"[:1500], result=result, **common)

    @staticmethod
    def _characterize(search: Search, axis: Axis, result: SearchResult) -> None:
        """A few more values of each knob the failure changed (double, half, one off the nominal),
        so the pattern over passing and failing values rests on more than the search's picks."""
        fail = result.failure
        assert fail is not None
        for knob, nominal in axis.base.items():
            if fail.config.get(knob) == nominal:
                continue
            for v in (2 * nominal, nominal // 2 if nominal % 2 == 0 else 0, nominal - 1, nominal + 1):
                if v >= 1 and v != nominal:
                    search.trial({**axis.base, knob: v})
        result.trials = list(search.order)

    # -- evidence --------------------------------------------------------------------------
    def _config(self, ctx: ToolContext, base: NominalRun | None, blocks: set[int],
                budget: WorkBudget | None = None) -> dict[str, Any]:
        cfg: dict[str, Any] = {**ctx.environment(), **tolerance_config(ctx), "budget": ctx.options.budget,
                               "budget_units": self.budget_units * ctx.options.budget,
                               "case_cap_units": self.case_cap_units, "block_sizes_seen": sorted(blocks)}
        if base is not None:
            cfg |= {"baseline_s": round(base.seconds, 3), "baseline_elements": base.elements,
                    "baseline_programs": base.programs, "baseline_units": round(base.nominal_units, 1)}
        if budget is not None:
            cfg["work"] = budget.record()
        return cfg

    # Rationale: what ran is what the submission was called on and answered or refused; a
    # configuration skipped, not accepted by the reference, or cut short was not tried.
    _RAN = ("pass", "fail", "rejected")

    def _report_axis(self, ctx: ToolContext, base: NominalRun, axis: Axis, result: SearchResult,
                     blocks: set[int], planned: list[dict[str, Any]], budget: WorkBudget,
                     cov: HostCoverage | None = None) -> None:
        tried = [t for t in result.trials if t.config != axis.base]
        stats = {v: result.count(v) for v in ("pass", "fail", "rejected", "invalid", "skipped", "inconclusive")}
        ran_keys = {Search.key(t.config) for t in tried if t.verdict in self._RAN}
        not_tried = [c for c in planned if Search.key(c) not in ran_keys]
        coverage = {"planned": len(planned), "ran": sum(1 for c in planned if Search.key(c) in ran_keys),
                    "ran_total": len(ran_keys), "not_tried": [axis.describe(c) for c in not_tried]}
        search_rec = {"axis": axis.name, "dims": {d.name: d.values for d in axis.dims}, "counts": stats,
                      "tried": [{"config": t.config, "verdict": t.verdict, "note": t.note[:160],
                                 # the case that ran, so kreview compare can run other implementations on it
                                 **({"case": t.payload.case.spec()} if isinstance(t.payload, Evaluation) else {})}
                                for t in result.trials],
                      "stopped": result.stopped, "unrun": result.unrun, "notes": axis.notes, "coverage": coverage}
        if axis.paths:
            search_rec["paths"] = self._paths(ctx, base, axis, result, blocks, search_rec, cov)
        config = self._config(ctx, base, blocks, budget)
        if result.failure is not None:
            self._report_failure(ctx, base, axis, result, blocks, search_rec)
        for t in [t for t in tried if t.verdict == "inconclusive"][:1]:
            ev = t.payload
            undecided = ev.judgement is not None and ev.judgement.unverified is not None
            ctx.add_evidence(self, outcome="unverified", defect=ev.judgement.defect if undecided else "timeout",
                             reason=ev.judgement.unverified if undecided else t.note,
                             summary=f"{axis.name}: {axis.describe(t.config)} could not be concluded: {t.note}",
                             check=f"generality search over {axis.name}", inputs=ev.inputs_record(),
                             config=config, result={**ev.result_record(), "search": search_rec},
                             rerun=ctx.rerun(self.name, ev.case), duration_s=ev.duration_s)
        if result.backstop and result.unrun_configs:
            cut = [axis.describe(c) for c in result.unrun_configs]
            ctx.add_evidence(self, outcome="unverified", defect="backstop",
                             reason="the wall-clock backstop was reached",
                             summary=f"{axis.name}: {len(cut)} planned configuration(s) not run, the wall-clock "
                                     f"backstop was reached: {'; '.join(cut[:8])}{'; ...' if len(cut) > 8 else ''}",
                             check=f"generality search over {axis.name}", inputs={"case": base.case.model_dump()},
                             config=config, result={"search": search_rec, "not_run": result.unrun_configs},
                             rerun=ctx.rerun(self.name))
        if result.failure is not None:
            return
        passed = [t for t in tried if t.verdict == "pass"]
        rejected = [t for t in tried if t.verdict == "rejected"]
        count = f"{coverage['ran']} of {coverage['planned']} planned {axis.name} ran"
        if coverage["ran_total"] > coverage["ran"]:
            count += f" (+{coverage['ran_total'] - coverage['ran']} combinations)"
        if not_tried:
            names = coverage["not_tried"]
            count += f", not tried: {'; '.join(names[:6])}{'; ...' if len(names) > 6 else ''}"
        notes = []
        if rejected:
            notes.append(f"{len(rejected)} refused by the submission's own raise/assert (valid rejections)")
        if stats["invalid"]:
            notes.append(f"{stats['invalid']} not accepted by the reference")
        if stats["skipped"]:
            why = "over the per-case cap or the work budget" if budget.cut else "over the per-case cap"
            notes.append(f"{stats['skipped']} skipped as {why}")
        for path in search_rec.get("paths", []):
            if path["run_at"]:
                notes.append(f"the wrapper's path when `{path['condition']}` (line {path['line']}), reached by the "
                             f"task's benchmark sizes, ran at {', '.join(path['run_at'][:2])}")
        if result.unrun and not result.backstop:
            notes.append(f"search stopped early: {result.stopped}")
        notes += axis.notes
        tail = f"; {'; '.join(notes)}" if notes else ""
        common: dict[str, Any] = {"check": f"generality search over {axis.name}",
                                  "inputs": {"case": base.case.model_dump()}, "config": config,
                                  "result": {"search": search_rec}, "rerun": ctx.rerun(self.name)}
        if passed:
            shown = "; ".join(axis.describe(t.config) for t in passed[:6]) + ("; ..." if len(passed) > 6 else "")
            ctx.add_evidence(self, outcome="pass",
                             summary=f"{axis.name}: {count}; all {len(passed)} run off the nominal one are "
                                     f"correct ({shown}){tail}", **common)
        elif rejected:
            ctx.add_evidence(self, outcome="info", summary=f"{axis.name}: {count}; every configuration run was "
                             f"refused by the submission{tail}", **common)
        elif stats["invalid"] and not stats["skipped"] and not result.unrun:
            ctx.add_evidence(self, outcome="info", summary=f"{axis.name}: not applicable, the reference accepts none "
                             f"of the configurations{tail}", **common)
        else:
            # Rationale: no pass without coverage: an axis none of whose configurations ran leaves
            # the criterion unverified, naming what was not tried.
            ctx.add_evidence(self, outcome="unverified", defect="not_covered",
                             reason=f"no {axis.name} configuration ran",
                             summary=f"{axis.name}: no configuration ran ({count}){tail}", **common)

    def _report_failure(self, ctx: ToolContext, base: NominalRun, axis: Axis, result: SearchResult,
                        blocks: set[int], search_rec: dict[str, Any]) -> None:
        fail = result.failure
        assert fail is not None
        ev: Evaluation = fail.payload
        why = self._why(ctx, ev, blocks)
        spans: list[SourceSpan] = []
        if axis.name == "sizes":
            if all(explain.is_partial_only(w) for w in why if w.startswith("output ")) and why:
                why += self._larger_tail(ctx, axis, result, fail, blocks)
            why += self._size_patterns(ctx, axis, result, fail, spans)
            nominal_inputs = base.evaluation.ref.meta.get("inputs", [])
            if explain.shape_note(nominal_inputs) is None and (note := explain.shape_note(ev.ref.meta.get("inputs", []))):
                why.append(f"the nominal inputs are square in their last two dims; this case has {note}")
        elif axis.name == "init_args":
            if axis.base_verdict == "pass":
                what = "constructor" if format_of(ctx.submission).sizes_in_reference else "input generator"
                why.append(f"the same inputs pass with the nominal value(s); only the {what} argument(s) "
                           "changed, in the reference and the submission alike")
        elif axis.name == "layouts":
            strides = [(d.get("shape"), d.get("stride"), d.get("storage_offset")) for d in ev.ref.meta.get("inputs", [])]
            why.append(f"the same shapes pass with contiguous inputs; here the inputs are (shape, stride, offset) "
                       f"{strides}")
        if result.aimed:
            why.append(result.aimed)
        elif not result.shrunk:
            why.append("found by the sweep of single changes and not shrunk further")
        spans = spans or ctx.submission_span(ev.error_line(ctx))
        outcome = ev.classified.outcome if ev.classified is not None else "fail"
        defect = ev.classified.defect if ev.classified is not None else (ev.judgement.defect if ev.judgement else None)
        summary = f"{axis.name}: {axis.describe(fail.config)} fails: {ev.short_summary()[:400]}"
        if axis.name == "dtypes" and refuses_dtype(ev.classified):
            outcome, defect = "info", "unsupported_dtype"
            summary = f"{axis.name}: {axis.describe(fail.config)} is not supported: {ev.short_summary()[:400]}"
        if why:
            summary += " — " + "; ".join(why)[:900]
        advisory = outside_contract(ctx.submission, ev.case) if outcome == "fail" else None
        if advisory:
            outcome, summary = "info", f"{summary[:1200]} ({advisory})"
        ctx.add_evidence(self, outcome=outcome, defect=defect or "mismatch", summary=summary,
                         reason=ev.classified.reason if outcome == "unverified" and ev.classified else None,
                         check=f"generality search over {axis.name} (smallest failing configuration)",
                         inputs=ev.inputs_record(), config=self._config(ctx, base, blocks),
                         result={**ev.result_record(), "configuration": fail.config, "shrunk": result.shrunk,
                                 "why": why, "search": search_rec, "advisory": advisory},
                         spans=spans, rerun=ctx.rerun(self.name, ev.case), duration_s=ev.duration_s)

    def _why(self, ctx: ToolContext, ev: Evaluation, blocks: set[int]) -> list[str]:
        why: list[str] = []
        if ev.judgement is not None and ev.judgement.defect == "mismatch" and ev.run is not None:
            atol, rtol = ctx.tolerance()
            # Rationale: the failing run's own constexprs are the tiles it really used; the
            # nominal launch's and the source's only stand in when it launched nothing.
            ordered = sorted(launch_blocks(launches_of(ev)), reverse=True) or sorted(blocks, reverse=True)
            why += explain.tail_facts(ev.run.outputs, ev.ref.outputs, ordered, atol, rtol)
        inner = _inner_frame(ev)
        if inner:
            why.append(inner)
        return why

    def _larger_tail(self, ctx: ToolContext, axis: Axis, result: SearchResult, fail: Trial,
                     blocks: set[int]) -> list[str]:
        """When the smallest failing size is below one block, the tail fact of the next failing
        size of the same knob that spans at least one full block."""
        knobs = [k for k, v in fail.config.items() if v != axis.base[k]]
        if len(knobs) != 1:
            return []
        knob = knobs[0]
        others = sorted((t for t in result.trials if t.verdict == "fail" and t is not fail and t.payload is not None
                         and all(t.config[k] == axis.base[k] for k in axis.base if k != knob)),
                        key=lambda t: t.config[knob])
        for t in others:
            facts = [f for f in self._why(ctx, t.payload, blocks)
                     if f.startswith("output ") and not explain.is_partial_only(f)]
            if facts:
                return [f"at {axis.describe(t.config)}: {facts[0]}"]
        return []

    def _size_patterns(self, ctx: ToolContext, axis: Axis, result: SearchResult, fail: Trial,
                       spans: list[SourceSpan]) -> list[str]:
        out = []
        for knob in [k for k, v in fail.config.items() if v != axis.base[k]]:
            singles = [t for t in result.trials
                       if all(t.config.get(k) == axis.base[k] for k in axis.base if k != knob)]
            passing = [t.config[knob] for t in singles if t.verdict == "pass"]
            failing = [t.config[knob] for t in singles if t.verdict == "fail"]
            pattern = explain.value_pattern(knob, passing, failing, axis.base[knob])
            if pattern:
                out.append(pattern)
                literal = axis.base[knob] if "only at its nominal value" in pattern else explain.threshold(pattern)
                if literal is not None:
                    lines = explain.literal_lines(ctx.source.text, literal)
                    for line in lines[:3]:
                        spans += ctx.submission_span(line)
                    if lines:
                        out.append(f"the submission's source holds the literal {literal} at line(s) "
                                   f"{', '.join(map(str, lines[:5]))}")
        return out

    # -- probe -----------------------------------------------------------------------------
    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        if case.id == "generality-large-grid":
            notes: list[str] = []
            if not self._large_grid_case(ctx, case, None, notes):
                ctx.add_evidence(self, outcome="unverified", defect="large_grid_not_tried",
                                 reason="grid over 65,535 programs not tried", summary="; ".join(notes)[:500],
                                 check="generality: a grid past 65,535 programs", rerun=ctx.rerun(self.name, case))
            return
        ev = evaluate(ctx, case, instruments=instruments_for(ctx), allow_rejection=True)
        self._report_case(ctx, ev, case.label or _describe(case), source_blocks(ctx.source.text))

    def _report_case(self, ctx: ToolContext, ev: Evaluation, label: str, blocks: set[int]) -> None:
        status = ev.status
        common: dict[str, Any] = {"check": f"generality probe: {label}", "inputs": ev.inputs_record(),
                                  "config": self._config(ctx, None, blocks), "rerun": ctx.rerun(self.name, ev.case),
                                  "duration_s": ev.duration_s}
        if status == "reference_failed":
            ctx.add_evidence(self, outcome="unverified", defect="reference_failed", reason="the reference fails here",
                             summary=ev.summary(), result=ev.result_record(), **common)
        elif status == "rejected":
            ctx.add_evidence(self, outcome="info", summary=ev.summary(), result=ev.result_record(), **common)
        elif status == "ok":
            ctx.add_evidence(self, outcome="pass", summary=f"{label}: {ev.summary()}", result=ev.result_record(),
                             **common)
        else:
            why = self._why(ctx, ev, blocks | launch_blocks(launches_of(ev)))
            undecided = status == "undecided"
            outcome = ev.classified.outcome if ev.classified is not None else ("unverified" if undecided else "fail")
            if outcome == "fail" and (advisory := outside_contract(ctx.submission, ev.case)):
                outcome, why = "info", [*why, advisory]
            defect = ev.classified.defect if ev.classified is not None else (ev.judgement.defect if ev.judgement else None)
            reason = (ev.classified.reason if ev.classified else
                      (ev.judgement.unverified if ev.judgement else None)) if outcome == "unverified" else None
            ctx.add_evidence(self, outcome=outcome, defect=defect or "mismatch",
                             summary=f"{label}: {ev.short_summary()[:400]}" + (" — " + "; ".join(why) if why else ""),
                             reason=reason,
                             result={**ev.result_record(), "why": why},
                             spans=ctx.submission_span(ev.error_line(ctx)), **common)
