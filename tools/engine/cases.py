"""Building the concrete cases a tool runs from the submission's nominal cases and the run's seeds."""

from __future__ import annotations

from tools.engine.formats import format_of
from tools.engine.tool import ToolContext
from tools.engine.harness.case import Case


def nominal_cases(ctx: ToolContext, n_seeds: int, purpose: str = "correctness") -> list[Case]:
    """The nominal inputs under ``n_seeds`` run seeds, as the submission's format runs them
    (``SubmissionFormat.nominal_cases``: KernelBench and manifests every nominal case under each seed;
    GPU MODE its public seeds, then seeds the submission cannot know)."""
    return format_of(ctx.submission).nominal_cases(ctx.submission, ctx.seeds(n_seeds, purpose), n_seeds, purpose)
