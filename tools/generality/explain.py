"""Why a configuration fails, in measured facts only.

Each function looks at something the reviewer measured (where the wrong elements are, which values
of a knob pass and which fail, which literals the source contains) and returns a sentence only
when the measurement supports it; nothing here guesses at intent.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable
from typing import Any

import torch

from tools.engine.compare.compare import mismatch_mask
from tools.engine.harness.tensors import flatten
from tools.engine.source import parse as parse_source


def _leaves(value: Any) -> list[tuple[str, Any]]:
    return flatten(value if isinstance(value, (list, tuple)) else [value])


def tail_facts(actual: Any, expected: Any, blocks: Iterable[int], atol: float | None, rtol: float | None) -> list[str]:
    """Wrong elements confined to the part beyond the last full block, flat or per row. ``blocks``
    in order of preference (the real launch's constexprs first)."""
    facts: list[str] = []
    blocks = list(dict.fromkeys(b for b in blocks if b > 1))
    for (path, a), (_, e) in zip(_leaves(actual), _leaves(expected), strict=False):
        if not (isinstance(a, torch.Tensor) and isinstance(e, torch.Tensor)) or a.shape != e.shape or e.numel() < 2:
            continue
        bad = mismatch_mask(a, e, atol, rtol)
        k = int(bad.sum())
        if not k:
            continue
        n = e.numel()
        flat = bad.flatten().nonzero().flatten()
        zero = bool((a.flatten()[flat] == 0).all())
        left = " (all left at 0)" if zero else ""
        for b in blocks:
            q = (n // b) * b
            if n % b and q == 0 and k == n:
                facts.append(f"output {path}: all {n} elements are wrong{left}; {n} is less than one BLOCK={b}, so "
                             f"the only block is a partial one")
                break
            if n % b and q and int(flat.min()) >= q:
                facts.append(f"output {path}: all {k} wrong elements lie in the last {n - q} of {n} (flat index "
                             f">= {q}), past the last full BLOCK={b}{left}: the tail beyond a multiple of {b} "
                             f"is not handled")
                break
            if e.dim() >= 2:
                c = e.shape[-1]
                qc = (c // b) * b
                cols = bad.reshape(-1, c).nonzero()[:, 1]
                rows = int(bad.reshape(-1, c).any(dim=1).sum())
                if c % b and qc and int(cols.min()) >= qc:
                    facts.append(f"output {path}: in {rows} row(s) only columns {qc}..{c - 1} of {c} are wrong "
                                 f"({k} elements){left}, the part of each row past the last full BLOCK={b}")
                    break
    return facts


def is_partial_only(fact: str) -> bool:
    """A tail fact about an input smaller than one block (true, but says little about the tail)."""
    return "less than one BLOCK" in fact


def _gcd_all(values: Iterable[int]) -> int:
    g = 0
    for v in values:
        g = math.gcd(g, v)
    return g


def value_pattern(name: str, passing: Iterable[int], failing: Iterable[int], nominal: int) -> str | None:
    """A pattern over the values of one knob: passes only at the nominal value, or only on
    multiples of a power of two."""
    passing, failing = sorted(set(passing) | {nominal}), sorted(set(failing))
    if not failing:
        return None
    # Rationale: two failing values are a coincidence as often as a pattern; three are not.
    if passing == [nominal] and len(failing) >= 3:
        return (f"{name} passes only at its nominal value {nominal}: every other value tried fails "
                f"({', '.join(map(str, failing[:8]))}{', ...' if len(failing) > 8 else ''})")
    pow2 = [v for v in passing if v & (v - 1) == 0]
    if len(pow2) == len(passing) >= 3 and not any(v & (v - 1) == 0 for v in failing):
        return (f"{name} passes only on powers of two ({', '.join(map(str, passing[:6]))}) and fails on "
                f"{', '.join(map(str, failing[:6]))}: a padded block is not handled")
    g = _gcd_all(passing)
    b = g & -g if g else 0  # largest power of two dividing every passing value
    if len(passing) >= 2 and b >= 8 and all(v % b for v in failing):
        return (f"{name} passes only on multiples of {b} ({', '.join(map(str, passing[:6]))}) and fails on "
                f"{', '.join(map(str, failing[:6]))}")
    if len(passing) >= 2 and max(passing) < min(failing):
        return (f"{name} passes up to {max(passing)} and fails from {min(failing)} on "
                f"(passing {', '.join(map(str, passing[:6]))}; failing {', '.join(map(str, failing[:6]))})")
    if len(passing) >= 2 and min(passing) > max(failing):
        return (f"{name} fails up to {max(failing)} and passes from {min(passing)} on "
                f"(failing {', '.join(map(str, failing[:6]))}; passing {', '.join(map(str, passing[:6]))})")
    return None


def threshold(pattern: str) -> int | None:
    """The last passing value of an 'passes up to N' pattern (a limit the source may spell out)."""
    if " passes up to " not in pattern:
        return None
    return int(pattern.split(" passes up to ", 1)[1].split(" ", 1)[0])


def literal_lines(source: str, value: int) -> list[int]:
    """Lines of ``source`` holding the integer literal ``value``."""
    try:
        tree = parse_source(source)
    except SyntaxError:
        return []
    return sorted({n.lineno for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is int
                   and n.value == value})


def shape_note(inputs: list[dict[str, Any]]) -> str | None:
    """The input shapes of a case, when any is non-square in its last two dims."""
    shapes = [d.get("shape") for d in inputs if isinstance(d.get("shape"), list) and len(d["shape"]) >= 2]
    odd = [s for s in shapes if s[-1] != s[-2]]
    if not odd:
        return None
    return "input shape(s) " + ", ".join("x".join(map(str, s)) for s in shapes)
