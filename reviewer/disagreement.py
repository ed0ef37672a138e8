"""Differences in behaviour for ``kreview compare``: every implementation runs, in its own sandbox
session, on the configurations its reviews' correctness and generality tools ran; each pair's
disagreements are found and shrunk by tools/engine/differential.py."""

from __future__ import annotations

import itertools
import shlex
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.models import Review
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tools.engine.differential import PORT_PRECISION_FACTOR, CaseCheck, PairReport, Side, cases_in, check_case, compare_pair
from tools.engine.harness.case import Case

# Rationale: each case costs one call per implementation (plus its reference); the nominal cases and
# the generality configurations of a level-1 task are a few dozen, under the interpreter a few
# seconds in all. Beyond this many the rest are named as not checked.
MAX_CASES = 40


def cases_from(reviews: list[Review]) -> list[Case]:
    """The configurations the reviews' case-replaying tools ran (``Tool.replays_cases``: correctness,
    generality; tools/engine/differential.py)."""
    return cases_in([e for r in reviews for e in r.evidence])


def original_of(named: list[tuple[str, Path]]) -> str | None:
    """The name of the implementation another one names as its original (``[port] original``), when
    it is among those compared."""
    where = {Path(p).resolve(): n for n, p in named}
    for _, p in named:
        sub = load_submission(p)
        if sub.original is not None and Path(sub.original.root) in where:
            return where[Path(sub.original.root)]
    return None


def rerun_command(paths: list[Path], case: Case, seed: int, config: ReviewConfig) -> str:
    parts = ["kreview", "compare", *(shlex.quote(str(p)) for p in paths), "--case", shlex.quote(case.spec()),
             "--seed", str(seed)]
    if config.device != "auto":
        parts += ["--device", config.device]
    return " ".join(parts)


@contextmanager
def sides(named: list[tuple[str, Path]], config: ReviewConfig, seed: int) -> Iterator[list[Side]]:
    """One tool context (its own sandbox session) per implementation; closed on exit."""
    device = detect_device(config.device)
    out: list[Side] = []
    with tempfile.TemporaryDirectory(prefix="kreview-compare-") as tmp:
        try:
            for name, path in named:
                sub = load_submission(path, None, config.target_gpu)
                out.append(Side(name, make_tool_context(sub, config, Path(tmp) / name, seed, device)))
            yield out
        finally:
            for s in out:
                s.ctx.session.close()


def pairs(names: list[str], original: str | None) -> list[tuple[int, int]]:
    """Which pairs to compare: every pair, or, with an original, the original against each other one."""
    if original is not None and original in names:
        o = names.index(original)
        return [(o, i) for i in range(len(names)) if i != o]
    return list(itertools.combinations(range(len(names)), 2))


def behaviour(named: list[tuple[str, Path, Review]], config: ReviewConfig, seed: int,
              original: str | None = None) -> tuple[list[PairReport], list[str]]:
    """Every pair's report and notes (cases left unchecked)."""
    cases = cases_from([r for _, _, r in named])
    notes = []
    if len(cases) > MAX_CASES:
        notes.append(f"differences in behaviour: {len(cases) - MAX_CASES} of {len(cases)} configurations not "
                     f"checked (at most {MAX_CASES})")
        cases = cases[:MAX_CASES]
    if not cases:
        return [], ["differences in behaviour: no correctness or generality configuration ran, nothing to compare"]
    paths = [p for _, p, _ in named]
    reports = []
    with sides([(n, p) for n, p, _ in named], config, seed) as ss:
        for i, j in pairs([s.name for s in ss], original):
            is_port = ss[i].name == original
            rep = compare_pair(ss[i], ss[j], cases, rng_seed=seed, original=original if is_port else None,
                               precision_factor=PORT_PRECISION_FACTOR if is_port else None)
            if rep.smallest is not None:
                rep.rerun = rerun_command(paths, Case.model_validate(rep.smallest.case), seed, config)
            reports.append(rep)
    return reports, notes


def rerun(named: list[tuple[str, Path]], config: ReviewConfig, seed: int, case: Case,
          original: str | None = None) -> list[CaseCheck]:
    """``kreview compare ... --case``: the pairs' checks on that one case, with the float64 judge."""
    with sides(named, config, seed) as ss:
        return [check_case(ss[i], ss[j], case,
                           precision_factor=PORT_PRECISION_FACTOR if ss[i].name == original else None)
                for i, j in pairs([s.name for s in ss], original)]
