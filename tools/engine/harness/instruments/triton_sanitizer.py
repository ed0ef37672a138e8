"""``triton_sanitizer``: run the call with the CPU Triton sanitizer installed.

Checks the interpreter internals first (:mod:`tools.engine.harness.sanitizer.compat`) and raises
``SanitizerIncompatible`` before patching anything if they moved; then patches, lets the call run,
and always restores. The returned dict (see :class:`tools.engine.harness.sanitizer.report.Report`) counts
launches, programs and checked lanes and lists the violations. Like every instrument it is a claim
from a process running untrusted code: the parent treats a clean report as a pass only when the
launches it counts agree with ``triton_launches``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tools.engine.harness import interpreter_fixes, interpreter_gaps, interpreter_speed
from tools.engine.harness.instruments import instrument
from tools.engine.harness.sanitizer.compat import require_compatible
from tools.engine.harness.sanitizer.hooks import Sanitizer
from tools.engine.harness.sanitizer.report import Report


@instrument("triton_sanitizer")
@contextlib.contextmanager
def triton_sanitizer(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    import triton
    from triton.runtime import interpreter

    require_compatible()
    report = Report(triton.__version__)
    san = Sanitizer(interpreter, report)
    # an older interpreter's own bug is not the kernel's interpreter_error (children without the
    # virtual device, as on a GPU machine, have not had it fixed yet)
    unfix = interpreter_fixes.patch_index(interpreter)
    # likewise where the interpreter differs from compiled Triton (a float argument, a builtin's alias)
    ungap = interpreter_gaps.patch(interpreter)
    unspeed = interpreter_speed.patch(interpreter)  # wraps the gaps' patch: undone first
    try:
        san.install()
        try:
            yield report.data
        finally:
            san.uninstall()
    finally:
        unspeed()
        ungap()
        if unfix is not None:
            unfix()
