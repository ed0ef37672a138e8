"""From a review's evidence to fix candidates: which defect classes the failing items of a criterion name,
and the rewrite each class makes to the submission file.

The map is keyed on what the tools already say about a failure (its criterion, ``defect`` code, check and
summary), never on a kernel's name; a class whose pattern is absent from the source yields no candidate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reviewer.core.fixes import FixKind, TextEdit
from reviewer.core.models import Evidence, Review
from reviewer.fix.rules import RULES
from reviewer.fix.source import Program

# Rationale: each class is tried on the criteria whose checks see it, when a failing item's words name it;
# the order within a criterion puts the class its evidence names most directly first.
TRIGGERS: list[tuple[FixKind, frozenset[str], re.Pattern[str]]] = [
    ("int64_offsets", frozenset({"correctness", "generality"}),
     re.compile(r"int32|wrap|2\*\*31|overflow.*index|index.*overflow|negative_offset")),
    ("tail_mask", frozenset({"correctness", "generality"}),
     re.compile(r"\boob|out of bounds|out-of-bounds|invalid_global|past the end|tail|mismatch")),
    ("contiguous", frozenset({"correctness", "generality"}),
     re.compile(r"layout|transpos|strid|contig|non-contiguous")),
    ("max_subtraction", frozenset({"numerics", "correctness", "generality"}),
     re.compile(r"\bexp|large_magnitude|overflow|inf_handling|\binf\b|x1e3")),
    ("fp32_accumulator", frozenset({"numerics", "correctness", "generality"}),
     re.compile(r"accumulat|float16|bfloat16|fp16|bf16|65504")),
    ("wrapper_dtype", frozenset({"correctness", "generality"}),
     re.compile(r"dtype")),
    # an integer or bool output that differs ("integer elements differ") is what an uncast store of a float
    # gives a bool pointer: Triton stores it as int8, truncating 0.15 to 0 where the cast (!= 0) gives True
    ("store_cast", frozenset({"correctness", "generality", "numerics"}),
     re.compile(r"dtype|float16|bfloat16|round|integer elements")),
]


@dataclass(frozen=True)
class Candidate:
    kind: FixKind
    criterion: str
    description: str
    file: str
    edits: tuple[TextEdit, ...]
    targets: tuple[str, ...]
    """Ids of the criterion's failing evidence items the patch must turn into passes."""
    origin: str = "rule"
    """``rule`` or ``llm:<model>`` (reviewer/fix/llm.py)."""


def _words(e: Evidence) -> str:
    # Rationale: what the item found (its defect and summary), not the check's description, which lists every
    # defect the check can find (memcheck's names "int32 index wrap" on every item)
    return " ".join(x for x in (e.defect or "", e.summary) if x).lower()


def failing(review: Review, criterion: str) -> list[Evidence]:
    by_id = review.evidence_by_id()
    c = review.criterion(criterion)
    return [by_id[i] for i in c.evidence if i in by_id and by_id[i].outcome == "fail"]


def candidates(review: Review, text: str) -> list[Candidate]:
    """Every candidate for every failed criterion, in trying order; identical patches are proposed once."""
    prog = Program.parse(text)
    if prog is None:
        return []
    out: list[Candidate] = []
    seen: set[tuple] = set()
    for c in review.criteria:
        if c.verdict != "fail":
            continue
        items = failing(review, c.id)
        words = " ".join(_words(e) for e in items)
        for kind, criteria, pattern in TRIGGERS:
            if c.id not in criteria or not pattern.search(words):
                continue
            rule, description = RULES[kind]
            edits = tuple(rule(prog))
            key = tuple((e.start_line, e.start_col, e.end_line, e.end_col, e.text) for e in edits)
            if not edits or (c.id, key) in seen:
                continue
            seen.add((c.id, key))
            out.append(Candidate(kind, c.id, description, review.submission.submission_file, edits,
                                 tuple(e.id for e in items)))
    return out
