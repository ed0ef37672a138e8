"""compute-sanitizer check modes on a GPU, for every framework whose kernels run compiled there.

``memcheck``, ``racecheck``, ``initcheck`` and ``synccheck``, each on a fresh sandbox child that runs
the submission once under it: CUDA C kernels (tools/engine/backends/cuda.py) and, on a GPU, Triton's
compiled kernels (tools/engine/backends/frameworks.py) alike: compute-sanitizer instruments whatever
kernels the process launches. Its report names the kernel and, where the compiler kept line
information (nvcc ``-lineinfo``, Triton by default), the source file and line.
"""

from __future__ import annotations

import functools
import re
import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING

from tools.engine.backends.base import CheckMode, Defect, ModeRun
from tools.engine.backends.cuda_tools import find_compute_sanitizer
import tools.engine.sandbox.safe_files as safe_files

if TYPE_CHECKING:
    from tools.engine.harness.case import Case
    from tools.engine.session import ReferenceRun
    from tools.engine.tool import ToolContext

SANITIZER_TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
# the most of a sanitizer log the parent reads back
LOG_CAP = 64 * 2**20


_SUMMARY = re.compile(r"ERROR SUMMARY:\s*(\d+)\s+error")
# Rationale: a report's first line follows the "=========" prefix after exactly one space; its
# details (location, thread, address) are indented further.
_REPORT = re.compile(r"^=+ ((?:Invalid|Uninitialized|Error|Race|Barrier|Misaligned|Out-of-range|Illegal|"
                     r"Program hit|Warp|Potential|Leaked|Unused|Malloc|Free|Memory|Detected)\b(?! SUMMARY).*)$",
                     re.MULTILINE | re.IGNORECASE)
_AT = re.compile(r"^=+\s+at\s+(.+?)(?:\s+in\s+(\S+?):(\d+))?$", re.MULTILINE)


def parse_sanitizer_log(text: str, tool: str,
                        map_line: Callable[[str, int], int | None] = lambda file, line: None,
                        ) -> tuple[int | None, list[Defect]]:
    """(error count from the summary or None if the summary is missing, distinct reports).
    ``map_line(file, line)`` turns a reported source location into a line of the submission file."""
    m = _SUMMARY.search(text)
    count = int(m.group(1)) if m else None
    seen: dict[str, Defect] = {}
    for rep in _REPORT.finditer(text):
        head = rep.group(1).strip()
        key = re.sub(r"0x[0-9a-f]+|\d+", "N", head.lower())
        if key in seen:
            continue
        tail = text[rep.end(): rep.end() + 600]
        at = _AT.search(tail)
        where = f" at {at.group(1)}" if at else ""
        line = map_line(at.group(2), int(at.group(3))) if at and at.group(3) else None
        code = f"{tool}_" + re.sub(r"[^a-z]+", "_", head.lower().split(" of ")[0].split(" at ")[0]).strip("_")[:40]
        seen[key] = Defect(code=code, message=f"{head}{where}"[:500], line=line)
    return count, list(seen.values())


def modes(ctx: ToolContext, *, unavailable: str = "") -> list[CheckMode]:
    """The four modes, each available when the review runs compiled kernels on a GPU and
    compute-sanitizer is installed; ``unavailable`` forces them off with that reason."""
    why, required = unavailable, True
    if not why and not ctx.device.has_gpu:
        why = "compute-sanitizer needs a CUDA device; this machine has none"
    elif not why and not ctx.setup.can_run:
        why = ctx.setup.why_not
    elif not why and find_compute_sanitizer() is None:
        # Rationale: the issue asks for compute-sanitizer "when installed"; its absence is
        # reported, but does not hold back a correctness verdict the plain runs support.
        why, required = "compute-sanitizer is not installed (not on PATH, not under CUDA_HOME)", False
    return [CheckMode(tool, f"compute-sanitizer --tool {tool}", available=not why, why_not=why, required=required)
            for tool in SANITIZER_TOOLS]


@functools.lru_cache(maxsize=4)
def _help(exe: str) -> str:
    try:
        out = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout + out.stderr


def supported(exe: str, options: list[tuple[str, str]]) -> list[str]:
    """The optional flags this compute-sanitizer knows (its ``--help`` names them): an option a
    release renamed or dropped would stop it before the child starts, leaving the check undone."""
    text = _help(exe)
    return [w for flag, value in options if not text or flag in text for w in (flag, value)]


def run_mode(ctx: ToolContext, mode: CheckMode, case: Case, ref: ReferenceRun,
             map_line: Callable[[str, int], int | None]) -> ModeRun:
    """Run ``case`` once under ``compute-sanitizer --tool <mode>`` and read its report."""
    exe = find_compute_sanitizer()
    assert exe is not None
    log = "sanitizer.log"
    options = [("--print-limit", "50"), ("--report-api-errors", "no")]
    if mode.name == "initcheck":
        options.append(("--track-unused-memory", "no"))
    if mode.name == "racecheck":
        options.append(("--racecheck-report", "all"))
    wrapper = [exe, "--tool", mode.name, "--log-file", log, *supported(exe, options)]
    # Rationale: torch's caching allocator sub-allocates big cudaMalloc blocks, so an overflow
    # into the slack of a block is invisible to memcheck; without caching every tensor is its own
    # allocation and its exact end is checked.
    env = {"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}
    base = ctx.options.limits
    # Rationale: sanitizers slow kernels 10-100x and start slowly; a plain-run timeout would
    # turn that slowness into a false hang.
    limits = base.model_copy(update={"call_timeout_s": max(base.call_timeout_s * 10, 600.0),
                                     "startup_timeout_s": max(base.startup_timeout_s * 4, 600.0)})
    run, folder = ctx.session.side_run(f"sanitizer-{mode.name}", case, ref, wrapper=wrapper, limits=limits,
                                       env_extra=env)
    try:
        # the child's folder: read without following a link or blocking on a FIFO it left there
        text = safe_files.read_bytes(folder / log, anchor=ctx.session.root, cap=LOG_CAP).decode(errors="replace")
    except OSError:
        text = ""
    count, defects = parse_sanitizer_log(text, mode.name, map_line)
    data = {"errors": count, "log_tail": text[-4000:], "exit_code": run.meta.get("exit_code"),
            "stderr_tail": (run.call.stderr_tail or "")[-2000:]}
    result = ModeRun(call=run.call, outputs=run.outputs if run.ok else None, defects=defects, data=data)
    if count is None and run.ok:
        result.defects.append(Defect("sanitizer_incomplete", "compute-sanitizer wrote no ERROR SUMMARY "
                                     f"(the child exited with {run.meta.get('exit_code')})"))
    elif count and not defects:
        result.defects.append(Defect(f"{mode.name}_errors", f"{count} error(s); see the sanitizer log"))
    return result


def same_file_lines(submission_file: str) -> Callable[[str, int], int | None]:
    """A reported ``file:line`` in the submission's own file is that line (Triton keeps the Python
    source's line numbers in its line information)."""
    from pathlib import Path

    name = Path(submission_file).name

    def map_line(file: str, line: int) -> int | None:
        return line if Path(file).name == name else None

    return map_line
