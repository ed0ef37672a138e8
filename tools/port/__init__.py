"""port: a port review. When kreview.toml names the implementation this one was ported from
(``[port] original = "../cuda_original"``: a CUDA kernel ported to Triton, a Triton kernel to Pallas),
the original's behaviour is what the port must preserve.

The original runs in a sandbox session of its own (its own reference and submission children, with
its own framework's run setup), the port in the review's; both run every configuration the
correctness and generality tools ran (tools/engine/differential.py). The port *diverges* on a case
when its outputs differ from the original's beyond the task's tolerance, when one fails where the
other answers, or when they differ within the tolerance but the port's error against float64 is more
than ``PORT_PRECISION_FACTOR`` times the original's. Float64 is the judge where both are inexact: a
divergence where the port is closer to float64 than the original is recorded as info (a behaviour
change for the human to sign off), one where the original is closer fails correctness
(``port_divergence``). The divergence is shrunk to the smallest case, sizes then values, and its
rerun reproduces it bit for bit (the outputs' sha256 are recorded).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tools.engine.differential import PORT_PRECISION_FACTOR, CaseCheck, PairReport, Side, cases_in, check_case, compare_pair
from tools.engine.facts import Facts
from tools.engine.harness.case import Case
from tools.engine.registry import backend_for
from tools.engine.session import SandboxSession
from tools.engine.tool import Tool, ToolContext

# Rationale: one call per implementation per case; the correctness seeds and the generality search
# of a level-1 task are a few dozen configurations.
MAX_CASES = 40


def _original_side(ctx: ToolContext) -> Side:
    orig = ctx.submission.original
    assert orig is not None
    setup = backend_for(orig.framework).run_setup(ctx.device)
    session = SandboxSession(orig, limits=ctx.options.limits, device=ctx.device, setup=setup,
                             keep_logs_in=ctx.run_dir / "artifacts" / "port" / "original-sandbox")
    octx = dataclasses.replace(ctx, submission=orig, setup=setup, session=session, evidence=[], findings=[],
                               facts=Facts(), _source=None)
    return Side("original", octx)


class PortTool(Tool):
    name = "port"
    criteria = ("correctness",)
    after = ("correctness", "generality")
    description = "a port against the original it names (kreview.toml [port]): behaviour preserved, float64 judging"

    def applies(self, ctx: ToolContext) -> str | None:
        orig = ctx.submission.original
        if orig is None:
            return "not a port (kreview.toml names no [port] original)"
        if not ctx.setup.can_run:
            return ctx.setup.why_not
        setup = backend_for(orig.framework).run_setup(ctx.device)
        if not setup.can_run:
            return f"the original ({orig.framework}) cannot run here: {setup.why_not}"
        return None

    def _sides(self, ctx: ToolContext) -> tuple[Side, Side]:
        return _original_side(ctx), Side("port", ctx)

    def _port_note(self, ctx: ToolContext) -> None:
        orig = ctx.submission.original
        assert orig is not None
        ctx.add_evidence(self, outcome="info",
                         summary=f"port review: {ctx.submission.name} ({ctx.submission.framework}) is a port of "
                                 f"{orig.name} ({orig.framework}, {orig.root}); the original's behaviour is what to "
                                 f"preserve, float64 judging where both are inexact",
                         check="kreview.toml [port] original", result={"original": orig.info().model_dump()},
                         frames_review=True)

    def _not_a_port(self, ctx: ToolContext) -> bool:
        if ctx.submission.original is not None:
            return False
        ctx.add_evidence(self, outcome="info", summary="not a port: kreview.toml names no [port] original",
                         check="kreview.toml [port] original (absent)")
        return True

    def run(self, ctx: ToolContext) -> None:
        if ctx.builds_failed() or self._not_a_port(ctx):
            return
        self._port_note(ctx)
        cases = cases_in(ctx.evidence)[:MAX_CASES]
        if not cases:
            ctx.add_evidence(self, outcome="unverified", defect="not_covered", reason="no configuration ran",
                             summary="port: no correctness or generality configuration ran, so the port was not "
                                     "compared with its original", check="port against its original",
                             rerun=ctx.rerun(self.name))
            return
        orig, port = self._sides(ctx)
        try:
            rep = compare_pair(orig, port, cases, rng_seed=ctx.seeds(1, "port-shrink")[0], original=orig.name,
                               precision_factor=PORT_PRECISION_FACTOR)
        finally:
            orig.ctx.session.close()
        self._report(ctx, rep)

    def _report(self, ctx: ToolContext, rep: PairReport) -> None:
        common: dict[str, Any] = {"check": "port against its original on the correctness and generality "
                                           "configurations (divergences shrunk; float64 judges)",
                                  "config": {**ctx.environment(), "precision_factor": PORT_PRECISION_FACTOR},
                                  "result": {"pair": rep.model_dump()}}
        if rep.cases_refused.get("port"):
            ctx.add_evidence(self, outcome="info", defect="port_refuses",
                             summary=f"port refuses {rep.cases_refused['port']} configuration(s) its original answers, "
                                     f"with its own raise/assert ({rep.refusal[:300]}): a narrower contract than the "
                                     f"original's, for the reviewer to sign off", rerun=ctx.rerun(self.name), **common)
        chk = rep.smallest
        if chk is None:
            if rep.cases_checked == 0:
                ctx.add_evidence(self, outcome="unverified", defect="not_covered", reason="no case was comparable",
                                 summary=f"port: {rep.summary}", rerun=ctx.rerun(self.name), **common)
                return
            ctx.add_evidence(self, outcome="pass", summary=f"port preserves its original's behaviour: {rep.summary}",
                             rerun=ctx.rerun(self.name), **common)
            return
        case = Case.model_validate(chk.case)
        self._record_check(ctx, chk, case, rep, common)

    def _record_check(self, ctx: ToolContext, chk: CaseCheck, case: Case, rep: PairReport | None,
                      common: dict[str, Any]) -> None:
        port_name = chk.sides[1].name
        where = f"on {chk.label or case.spec()} ({chk.input_elements} input elements)"
        digests = ", ".join(f"{s.name} {s.output_digest or s.status}" for s in chk.sides)
        head = (f"port diverges from its original on {rep.cases_disagreeing} of {rep.cases_checked} case(s); smallest "
                f"{'shrunk ' if rep.shrunk else ''}case" if rep is not None else "port vs original")
        inputs = {"case": case.model_dump(), "found_on": rep.found_on if rep is not None else None}
        rerun = ctx.rerun(self.name, case)
        if not chk.disagree:
            ctx.add_evidence(self, outcome="pass", summary=f"{head} {where}: {chk.detail}; outputs sha256 {digests}",
                             inputs=inputs, rerun=rerun, **common)
            return
        closer = chk.closer_to_float64
        if closer == port_name and chk.kind == "outputs":
            ctx.add_evidence(self, outcome="info", defect="port_behaviour_change",
                             summary=f"{head} {where}: {chk.detail[:300]}; {chk.judge}: the port changes the "
                                     f"original's behaviour towards float64 (a change for the reviewer to sign off); "
                                     f"outputs sha256 {digests}", inputs=inputs, rerun=rerun, **common)
            return
        ctx.add_evidence(self, outcome="fail", defect="port_divergence",
                         summary=f"{head} {where}: {chk.detail[:400]}; {chk.judge or 'no float64 judge'}; outputs "
                                 f"sha256 {digests}", inputs=inputs, rerun=rerun, **common)

    def rerun_case(self, ctx: ToolContext, case: Case) -> None:
        if self._not_a_port(ctx):
            return
        self._port_note(ctx)
        orig, port = self._sides(ctx)
        try:
            chk = check_case(orig, port, case, precision_factor=PORT_PRECISION_FACTOR)
        finally:
            orig.ctx.session.close()
        common: dict[str, Any] = {"check": "port against its original on one case (float64 judges)",
                                  "config": {**ctx.environment(), "precision_factor": PORT_PRECISION_FACTOR},
                                  "result": {"check": chk.model_dump()}}
        self._record_check(ctx, chk, case, None, common)
