"""autotune: every config of a ``@triton.autotune`` kernel is a kernel.

On a GPU any config may win the autotuner's benchmark (it depends on the GPU, the sizes and the
noise), so each one is reviewed: the submission runs on the nominal case once per config, that
config forced through the virtual device (tools/engine/harness/virtual_gpu.py, instrument ``virtual_gpu``),
under the CPU sanitizer (instrument ``triton_sanitizer``), and its outputs are judged against the
reference in the parent like any correctness case. A config that is wrong, reads or writes out of
bounds, or cannot launch is named. The launches of every config are handed to the resources tool
(fact ``AutotuneLaunches``) so each one is compiled for the targets too.

A config the autotuner itself prunes on a GPU (its benchmark catches ``CompileTimeAssertionFailure``,
``OutOfResources`` and ``PTXASError`` and never picks that config: a ``tl.static_assert`` such as
BLOCK_N <= HEAD_DIM, shared memory over the target's limit, which the resources tool judges) is named
as pruned, not as wrong; the review fails when no config survives.

Every other tool (correctness, generality, numerics...) runs ONE config, chosen deterministically:
the first one listed that the autotuner does not prune. The evidence says which.
"""

from __future__ import annotations

import re
from typing import Any

from tools.engine.tool import Tool, ToolContext
from tools.engine.cases import nominal_cases
from tools.engine.evaluate import evaluate, tolerance_config
from tools.engine.facts import AutotuneLaunches, BuildOutcome
from tools.engine.harness.case import Case

_INSTRUMENTS = ["virtual_gpu", "triton_sanitizer", "triton_launches"]
# what a config's compile raises when the autotuner prunes it (tools/engine/harness/interpreter_gaps.py gives
# a failing tl.static_assert the compiler's name under the interpreter)
_PRUNED = re.compile(r"CompileTimeAssertionFailure[^\n]*")
# Rationale: each config is one interpreted run of the nominal case; a kernel with dozens of configs
# (a matmul sweep) would take minutes, so the first ones listed are reviewed and the rest named.
MAX_CONFIGS_PER_KERNEL = 12


class AutotuneTool(Tool):
    name = "autotune"
    criteria = ("correctness",)
    after = ("builds",)
    leaves = (AutotuneLaunches,)
    description = "each @triton.autotune config on the nominal case (outputs + sanitizer), one config forced at a time"
    frameworks = ("triton",)
    mixed = True

    def applies(self, ctx: ToolContext) -> str | None:
        if not re.search(r"\bautotune\b", ctx.source.text):
            return "no @triton.autotune in the submission"
        if not ctx.setup.can_run:
            return ctx.setup.why_not
        if "tools.engine.harness.virtual_gpu" not in ctx.setup.preludes:
            return "configs are forced through the virtual device, which is used only under the CPU interpreter"
        return None

    def run(self, ctx: ToolContext) -> None:
        if ctx.builds_failed():
            return
        self.rerun_case(ctx, nominal_cases(ctx, 1, self.name)[0])

    def _configs(self, ctx: ToolContext) -> dict[str, list[str]]:
        built = ctx.facts.get(BuildOutcome)
        for e in built.items if built is not None else ():
            if e.defect == "virtual_device":
                tuned = (e.result or {}).get("autotune") or {}
                return {k: list(v.get("configs", [])) for k, v in tuned.items() if isinstance(v, dict)}
        return {}

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        rerun = ctx.rerun(self.name, case)
        tuned = self._configs(ctx)
        if not tuned:
            ev = evaluate(ctx, case, instruments=["virtual_gpu"])
            data = ((ev.run.meta or {}).get("instruments") or {}).get("virtual_gpu") if ev.run and ev.run.ok else None
            tuned = {k: list(v.get("configs", [])) for k, v in ((data or {}).get("autotune") or {}).items()}
        multi = {k: v for k, v in tuned.items() if len(v) > 1}
        if not multi:
            ctx.add_evidence(self, outcome="info", summary="no autotuned kernel with more than one config was "
                             "launched on the nominal case; nothing to review per config",
                             check="autotuned kernels seen by the virtual device", result={"autotune": tuned},
                             rerun=rerun)
            return
        env = ctx.environment()
        launches: list[dict[str, Any]] = []
        for kernel, configs in sorted(multi.items()):
            bad: list[str] = []
            pruned: list[str] = []
            reviewed = configs[:MAX_CONFIGS_PER_KERNEL]
            for index, label in enumerate(reviewed):
                verdict = self._one(ctx, case, kernel, index, label, len(configs), env, rerun, launches, pruned)
                if verdict is not None:
                    bad.append(f"config {index} ({label}): {verdict}")
            skipped = configs[MAX_CONFIGS_PER_KERNEL:]
            gone = {int(p.split(" ", 2)[1]) for p in pruned}
            first = next((i for i in range(len(configs)) if i not in gone), 0)
            summary = (f"{kernel}: {len(configs) - len(skipped)} of {len(configs)} autotune configs reviewed on "
                       f"{case.label}; " + (f"{len(bad)} wrong or failing: " + "; ".join(bad) if bad else
                                            "every config that runs is correct and in bounds")
                       + (f"; {len(pruned)} pruned by the autotuner itself: " + "; ".join(pruned) if pruned else "")
                       + f". The other tools ran config {first} ({configs[first]}), the first listed that the "
                         "autotuner does not prune, chosen deterministically (nothing is benchmarked without a GPU)")
            if skipped:
                summary += f"; {len(skipped)} config(s) after the first {MAX_CONFIGS_PER_KERNEL} not run"
            if len(pruned) == len(reviewed) and not skipped:
                ctx.add_evidence(self, outcome="fail", defect="autotune_no_config_survives",
                                 summary=f"{kernel}: the autotuner prunes every one of its {len(configs)} configs "
                                         f"({'; '.join(pruned)[:400]}): no config can run",
                                 check="every autotune config forced in turn (virtual device)",
                                 inputs={"case": case.model_dump()}, config=env,
                                 result={"kernel": kernel, "configs": configs, "pruned": pruned}, rerun=rerun)
            ctx.add_evidence(self, outcome="info", defect="autotune_summary", summary=summary,
                             check="every autotune config forced in turn (virtual device)",
                             inputs={"case": case.model_dump()},
                             result={"kernel": kernel, "configs": configs, "wrong": bad, "pruned": pruned,
                                     "search_config": first, "not_run": skipped}, rerun=rerun)
        ctx.facts.put(AutotuneLaunches(tuple(launches)))

    def _one(self, ctx: ToolContext, case: Case, kernel: str, index: int, label: str, total: int,
             env: dict[str, Any], rerun: str, launches: list[dict[str, Any]], pruned: list[str]) -> str | None:
        """Review one config; returns what is wrong with it, or None (a config the autotuner prunes is
        appended to ``pruned``)."""
        ev = evaluate(ctx, case, instruments=_INSTRUMENTS, options={"virtual_gpu": {"autotune": {kernel: index}}})
        what = f"{kernel} autotune config {index} of {total} ({label})"
        check = f"nominal case with config {index} forced, under the CPU sanitizer"
        inputs = {**ev.inputs_record(), "kernel": kernel, "config_index": index, "config": label}
        if ev.status == "reference_failed":
            ctx.add_evidence(self, outcome="unverified", defect="reference_failed", reason="reference failed",
                             summary=f"{what}: not checked, the reference failed on {case.label}", check=check,
                             inputs=inputs, config=env, rerun=rerun)
            return None
        observed = {}
        if ev.run is not None:
            observed = ((ev.run.meta or {}).get("instruments") if ev.run.ok else
                        (ev.run.call.error or {}).get("instruments")) or {}
        ran = ((observed.get("virtual_gpu") or {}).get("autotune") or {}).get(kernel, {}).get("chosen")
        launches += [dict(e, autotune_config=index) for e in (observed.get("triton_launches") or {}).get("launches", [])
                     if e.get("qualname") == kernel or e.get("kernel") == kernel.rsplit(".", 1)[-1]]
        violations = list((observed.get("triton_sanitizer") or {}).get("violations") or [])
        if ev.status == "failed" and ev.run is not None and _PRUNED.search(ev.run.call.failure_text()):
            # Rationale: Triton's Autotuner._bench returns inf for a config whose compile raises
            # CompileTimeAssertionFailure (a failing tl.static_assert), so a GPU never runs it.
            why = _PRUNED.search(ev.run.call.failure_text()).group(0)  # type: ignore[union-attr]
            ctx.add_evidence(self, outcome="info", defect="autotune_config_pruned",
                             summary=f"{what}: pruned by the autotuner itself ({why[:240]}); a GPU never runs it",
                             check=check, inputs=inputs, config=env, result=ev.result_record(),
                             spans=ctx.submission_span(ev.error_line(ctx)), rerun=rerun, duration_s=ev.duration_s)
            pruned.append(f"config {index} ({label}): {why[:160]}")
            return None
        if ev.status == "failed":
            c = ev.classified
            assert c is not None
            ctx.add_evidence(self, outcome=c.outcome, defect=f"autotune_config_{c.defect}",
                             summary=f"{what} cannot run: {c.reason}",
                             reason=c.reason if c.outcome == "unverified" else None, check=check, inputs=inputs,
                             config=env, result={**ev.result_record(), "violations": violations[:5]},
                             spans=ctx.submission_span(ev.error_line(ctx)), rerun=rerun, duration_s=ev.duration_s)
            return c.reason[:160] if c.outcome == "fail" else None
        j = ev.judgement
        assert j is not None
        if ran is not None and ran != [index]:
            ctx.add_evidence(self, outcome="unverified", defect="autotune_not_forced",
                             summary=f"{what}: the virtual device reports config(s) {ran} ran instead",
                             reason="the config could not be forced", check=check, inputs=inputs, config=env,
                             rerun=rerun)
            return None
        if violations:
            v = violations[0]
            ctx.add_evidence(self, outcome="fail", defect="autotune_config_oob",
                             summary=f"{what}: {len(violations)} out-of-bounds access(es) under the sanitizer, e.g. "
                                     f"{str(v.get('message') or v)[:240]}",
                             check=check, inputs=inputs, config=env,
                             result={**ev.result_record(), "violations": violations[:10]}, rerun=rerun,
                             duration_s=ev.duration_s)
            return f"{len(violations)} out-of-bounds access(es)"
        outcome = "pass" if j.ok else ("unverified" if j.unverified else "fail")
        ctx.add_evidence(self, outcome=outcome, defect=None if j.ok else (j.defect if j.unverified else
                                                                         "autotune_config_wrong"),
                         reason=j.unverified, summary=f"{what}: {j.summary}", check=check, inputs=inputs,
                         config={**env, **tolerance_config(ctx)}, result=ev.result_record(), rerun=rerun,
                         duration_s=ev.duration_s)
        return None if outcome != "fail" else j.summary[:160]
