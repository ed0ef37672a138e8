"""Which probe inputs a task's contract puts in scope (docs/verdict-determinism.md).

KernelBench: the reference ``Model`` is the contract, so any input it accepts is in scope: another
size, a non-contiguous layout, another dtype, large magnitudes and special values. A wrong answer on
any of them fails the criterion.

GPU MODE and manifests: the task's input generator is the contract. Sizes are its own keyword
arguments, so every size it accepts is in scope; but a probe that changes the generated tensors
(a non-contiguous view, scaled or injected values, a cast to another dtype) builds inputs the
generator never produces. A wrong answer there is reported as *advisory*: an ``info`` item that
names the defect and says why it does not fail (GPU MODE's own correct vectoradd solution was
rejected for strided layouts its ``generate_input`` never produces).
"""

from __future__ import annotations

from reviewer.core.submission import Submission
from tools.engine.formats import format_of
from tools.engine.harness.case import Case


def outside_contract(sub: Submission, case: Case) -> str | None:
    """Why ``case`` is outside what ``sub``'s task generates (None: in scope). The format says whether
    a generator is the contract (``SubmissionFormat.generator``)."""
    gen = format_of(sub).generator
    if gen is None:
        return None
    what = []
    if case.transforms:
        what.append(", ".join(sorted({t.kind for t in case.transforms})))
    if case.dtype and sub.dtype and case.dtype != sub.dtype:
        what.append(f"dtype {case.dtype}")
    if not what:
        return None
    return (f"advisory: the task's {gen} never produces these inputs ({'; '.join(what)}); for a {sub.format} "
            f"task only what its generator produces is in scope")
