"""Role 1: the planner. Proposes probes as data; the probes tool validates and runs them."""

from __future__ import annotations

from dataclasses import dataclass, field

from reviewer.llm.prompts import load_prompt
from reviewer.llm.schemas import PlannerOut, ProbeOut
from reviewer.llm.prompt_source import findings_digest, knobs, shown_files
from reviewer.llm.static_review import to_span
from reviewer.llm.structured import StructuredCaller, schema_text
from reviewer.core.models import Finding
from tools.engine.tool import ToolContext
from tools.engine.harness.case import Transform
from tools.engine.probe_requests import ProbeRequest, plan_probes
from tools.engine.review_plan import PlannedProbe


@dataclass
class PlanResult:
    probes: list[PlannedProbe] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answered: bool = False


def to_request(p: ProbeOut, finding_ids: set[str]) -> ProbeRequest:
    return ProbeRequest(assumption=" ".join(p.assumption.split()), params=dict(p.params), dtype=p.dtype,
                        transforms=[Transform(kind=t.kind, args=dict(t.args)) for t in p.transforms],
                        finding=p.finding if p.finding in finding_ids else None,
                        span=to_span(p.span) if p.span else None)


def propose_probes(caller: StructuredCaller, ctx: ToolContext, findings: list[Finding], *, limit: int,
                   diff: str = "") -> PlanResult:
    sub = ctx.submission
    messages = load_prompt("planner").render(
        framework=sub.framework, format=sub.format, files=shown_files(sub), diff=diff, knobs=knobs(sub),
        findings=findings_digest(findings), max_probes=limit, schema=schema_text(PlannerOut))
    asked = caller.ask(messages, PlannerOut, role="planner")
    out = PlanResult(notes=list(asked.notes), answered=asked.value is not None)
    if asked.value is None:
        return out
    ids = {f.id for f in findings}
    out.probes, dropped = plan_probes([to_request(p, ids) for p in asked.value.probes], ctx, limit)
    out.notes += [f"planner: {d}" for d in dropped]
    return out
