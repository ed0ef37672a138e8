"""What ``kreview fix --apply`` writes when several fixes verified (one per failed criterion): every fix whose
lines overlap none taken before it, in order, as one patch; that patch is rerun once in the sandbox, since
two fixes that each verified alone need not verify together. If the combination does not verify, only the
first fix (verified alone) is applied, and the result says why."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.fixes import Fix
from reviewer.core.models import Review
from reviewer.fix.candidates import Candidate, failing
from reviewer.fix.source import apply, unified
from reviewer.fix.verify import Verification, Verifier


@dataclass
class Combination:
    applied: list[Fix]
    patched: str
    diff: str
    left_out: list[tuple[Fix, str]] = field(default_factory=list)
    """Verified fixes not applied, each with why (overlaps an earlier one; the combination failed its rerun)."""
    reverified: bool = False
    """Whether the applied patch was rerun as a whole (it holds more than one fix and verified)."""
    together: str = ""
    """Why the fixes did not verify together (then only the first is applied); empty otherwise."""


def _lines(fix: Fix) -> set[int]:
    # Rationale: whole original lines each fix replaces (an insertion is anchored on a neighbouring line), so
    # two fixes on one line, or one inserting beside another's line, count as overlapping
    return {n for c in fix.changes for n in range(c.start_line, c.end_line + 1)}


def combine(review: Review, root: Path, config: ReviewConfig, fixes: list[Fix], original: str, *,
            verifier: Callable[[Candidate], Verification] | None = None) -> Combination:
    """The patch to apply for ``fixes`` (all verified, of the file ``original``; non-empty)."""
    first, taken, left_out, used = fixes[0], [fixes[0]], [], _lines(fixes[0])
    for f in fixes[1:]:
        lines = _lines(f)
        if f.file != first.file:
            left_out.append((f, f"patches {f.file}, not {first.file}"))
        elif lines & used:
            left_out.append((f, f"overlaps an earlier fix on line(s) {', '.join(map(str, sorted(lines & used)))}"))
        else:
            taken.append(f)
            used |= lines
    alone = apply(original, first.edits)
    if len(taken) == 1:
        return Combination([first], alone, first.diff, left_out)
    edits = tuple(e for f in taken for e in f.edits)
    patched = apply(original, list(edits))
    verify = verifier or Verifier(review, Path(root), config, original)
    problems = []
    for f in taken:
        v = verify(Candidate(f.kind, f.criterion, f.description, f.file, edits,
                             tuple(e.id for e in failing(review, f.criterion))))
        if not v.ok:
            problems.append(f"{f.id} ({f.criterion}): {v.why or 'the rerun did not pass'}")
    if problems:
        why = "the fixes together did not verify: " + "; ".join(problems)
        return Combination([first], alone, first.diff, left_out + [(f, why) for f in taken[1:]], together=why)
    return Combination(taken, patched, unified(original, patched, first.file), left_out, reverified=True)
