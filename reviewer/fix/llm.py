"""The model fixer: for a failed criterion no rule-based patch fixed, the model is asked once (prompts/fixer.yaml)
for line replacements in the submission file. Its answer becomes a ``Candidate`` like the rules' (origin
``llm:<model>``) after the guards of guard.py; the caller verifies it with the same sandbox rerun. Nothing here
raises for the model's sake: no answer, an unusable one or a refused patch is a note or a dropped candidate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.core.config import Structured
from reviewer.core.fixes import DroppedFix
from reviewer.core.models import Evidence, Review
from reviewer.fix.candidates import Candidate, failing
from reviewer.fix.guard import MAX_LINES_CHANGED, check_patch, line_edits
from reviewer.llm.agent import append_transcript
from reviewer.llm.client import ChatModel
from reviewer.llm.prompt_source import numbered
from reviewer.llm.prompts import load_prompt
from reviewer.llm.schemas import FixerOut
from reviewer.llm.structured import Asked, StructuredCaller, schema_text
from reviewer.llm.usage import UsageMeter

ROLE = "fixer"
DESCRIPTION_MAX = 300


@dataclass
class Proposed:
    candidates: list[Candidate] = field(default_factory=list)
    refused: list[DroppedFix] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _case(e: Evidence) -> str:
    case = e.inputs.get("case") if isinstance(e.inputs, dict) else None
    return f"; case {json.dumps(case, sort_keys=True, default=str)[:400]}" if case else ""


def failing_digest(items: list[Evidence]) -> str:
    rows = [f"- {e.id} [{e.outcome}] {e.tool}: {e.check}: {' '.join(e.summary.split())[:600]}"
            + (f" (defect {e.defect})" if e.defect else "") + _case(e) for e in items[:12]]
    return "\n".join(rows) or "(no failing item: the criterion failed on what it requires)"


def _inside(root: Path, rel: str) -> Path | None:
    """``root/rel`` when it is a plain file inside ``root`` (None: a symlink or a path leading out of it, which
    the model must never be shown: the folder may have changed since ingest refused such files)."""
    path = root / rel
    try:
        ok = not path.is_symlink() and path.is_file() and path.resolve().is_relative_to(root.resolve())
    except OSError:
        return None
    return path if ok else None


def _ask(caller: StructuredCaller, review: Review, criterion: str, text: str, reference: str) -> FixerOut | None:
    c = review.criterion(criterion)
    sub = review.submission
    body, _ = numbered(text)
    ref, _ = numbered(reference)
    messages = load_prompt("fixer").render(
        framework=sub.framework, criterion=f"{c.id} ({c.title}): {c.verdict}; {' '.join(c.summary.split())}",
        failing=failing_digest(failing(review, criterion)), file=sub.submission_file, numbered=body,
        reference=ref, max_lines=MAX_LINES_CHANGED, schema=schema_text(FixerOut))
    return caller.ask(messages, FixerOut, role=f"{ROLE} ({criterion})").value


def propose(review: Review, root: Path, text: str, criteria: list[str], model: ChatModel, *,
            structured: Structured = "auto") -> Proposed:
    """One candidate (or a refusal, or a note) per criterion in ``criteria``, from one question each."""
    origin = f"llm:{model.name}"
    out = Proposed()
    caller = StructuredCaller(model, UsageMeter(model.name, {}), structured=structured, temperature=0.0)
    notes: list[str] = []

    def record(role: str, asked: Asked) -> None:
        notes.extend(asked.notes)
        if review.run_dir:
            append_transcript(Path(review.run_dir) / "artifacts" / "llm" / "transcript.jsonl", role, asked)

    caller.on_exchange = record
    sub = review.submission
    if _inside(root, sub.submission_file) is None:
        out.notes.append(f"{ROLE}: {sub.submission_file} is not a plain file inside the submission folder; the "
                         "model was not asked")
        return out
    ref = _inside(root, sub.reference_file)
    reference = ref.read_text(errors="replace") if ref is not None else "(not shown)"
    for cid in criteria:
        answer = _ask(caller, review, cid, text, reference)
        if answer is None:
            continue
        if not answer.edits:
            notes.append(f"{ROLE} ({cid}): the model proposed no patch")
            continue
        summary = " ".join(answer.summary.split())[:DESCRIPTION_MAX] or "a patch proposed by the model"
        description = f"model's patch: {summary}"
        items = failing(review, cid)
        edits, why = line_edits([(e.start_line, e.end_line, e.replacement) for e in answer.edits], text)
        if not why:
            _, why = check_patch(text, edits, sub.submission_file, items)
        if why:
            out.refused.append(DroppedFix(kind="llm_patch", criterion=cid, description=description, origin=origin,
                                          why=f"refused before any rerun: {why}"))
            continue
        out.candidates.append(Candidate("llm_patch", cid, description, sub.submission_file, edits,
                                        tuple(e.id for e in items), origin=origin))
    out.notes = notes
    return out
