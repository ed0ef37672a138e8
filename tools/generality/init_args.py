"""The task's float hyper-parameters, varied: which ones a task lets vary, and to what.

KernelBench tasks pass scalar hyper-parameters to ``Model(*get_init_inputs())`` (ELU's alpha, a
LeakyReLU slope, a loss margin, a scale factor); a kernel that bakes in the task's value passes every
probe that varies only the forward inputs. The generality init-args axis builds both ``Model`` and
``ModelNew`` with a varied value instead (``Case.init_args``, applied in the reference child, so the
comparison stays reference against submission).

What is varied:

- KernelBench: the entries of ``get_init_inputs()`` that are Python floats when the reference builds
  the nominal case (the child reports them as ``init_floats``), named by ``Model.__init__``'s
  parameter at that position when the source says so.
- GPU MODE and manifest: float keyword arguments of the task's input generator (``seed`` aside).

What is not, and why:

- ints: sizes, dims and counts; the sizes axis owns the ones that are sizes, and an int that is a
  dim or an index selects another computation rather than another value of the same one.
- bools (``bias``, ``keepdim``, ``transpose``): a flag selects another variant of the task
  (parameters present or not, another output shape), not another value of its formula; KernelBench
  fixes such flags per task file, so flipping one reviews a task nobody posed.
- a constructor default the task never passes (``get_init_inputs()`` returns ``[]`` for a
  ``negative_slope=0.01`` default): the task fixes it.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any

from tools.engine.source import parse as parse_source

# Rationale: one or two extra cases per review; each float alone while there are at most this many
# (the evidence names the one that matters), all of them in one case beyond that.
MAX_CASES = 2
ALL = "all"


@dataclass(frozen=True)
class InitArg:
    """One float hyper-parameter: where it lives, its name, its nominal and varied values."""

    key: str
    """``"0"`` (KernelBench: position in ``get_init_inputs()``) or the generator kwarg's name."""
    name: str
    nominal: float
    varied: float

    def describe(self) -> str:
        return f"{self.name}={self.varied!r} (nominal {self.nominal!r})"


def varied_value(nominal: float) -> float:
    """A value clearly apart from ``nominal``, of the same sign (zero counts as positive).

    Rationale: ``1.5 a + 0.25`` moves every value by at least a quarter, so a hard-coded constant is
    off by far more than any tolerance (alpha 1.0 -> 1.75, eps 1e-5 -> 0.25), and keeps the sign,
    which is what most references need to stay defined (a positive eps, a negative clamp bound).
    The map is increasing, so bounds varied together keep their order (clamp_min stays below clamp_max).
    A fixed rule rather than a draw: a human can recompute it from the nominal value alone.
    """
    step = 0.25 if nominal >= 0 else -0.25
    return float(f"{nominal * 1.5 + step:.6g}")


def init_param_names(reference_source: str, class_name: str = "Model") -> list[str]:
    """Positional parameter names of ``class_name.__init__`` after ``self`` ([] when not found)."""
    try:
        tree = parse_source(reference_source)
    except SyntaxError:
        return []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    names = [a.arg for a in [*item.args.posonlyargs, *item.args.args]]
                    return names[1:]
    return []


def kernelbench_args(init_floats: dict[str, Any], names: list[str]) -> list[InitArg]:
    """The float entries of ``get_init_inputs()`` (as the reference child reports them), named."""
    out = []
    for key, value in sorted(init_floats.items(), key=lambda kv: int(kv[0])):
        index = int(key)
        if not isinstance(value, float) or not math.isfinite(value):
            continue
        label = names[index] if index < len(names) else f"get_init_inputs()[{index}]"
        out.append(InitArg(str(index), label, value, varied_value(value)))
    return out


def generator_args(params: dict[str, Any]) -> list[InitArg]:
    """Float keyword arguments of a task's input generator (``seed`` aside)."""
    return [InitArg(k, k, float(v), varied_value(float(v))) for k, v in sorted(params.items())
            if isinstance(v, float) and k != "seed" and math.isfinite(v)]


def variants(args: list[InitArg]) -> dict[str, list[InitArg]]:
    """The cases to run, by label: each argument alone up to ``MAX_CASES``, else all in one."""
    if not args:
        return {}
    if len(args) <= MAX_CASES:
        return {a.name: [a] for a in args}
    return {ALL: list(args)}
