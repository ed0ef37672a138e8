"""Parse the resource report of ``ptxas -v`` (also what ``nvcc -Xptxas -v`` prints).

The report is line-oriented and has changed between CUDA releases, so the parser reads it as a
sequence of independent facts rather than one fixed layout:

    ptxas info    : Compiling entry function '_Z2k1Pfi' for 'sm_80'
    ptxas info    : Function properties for _Z2k1Pfi
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 10 registers, used 1 barriers, 4096 bytes smem, 364 bytes cmem[0]
    ptxas error   : Entry function '_Z7too_bigPf' uses too much shared data (0x61a80 bytes, 0xc000 max)

Every ``N bytes <what>`` pair on a "Used" line is kept (``smem``, ``cmem[0]``, ``lmem``, ``cumulative
stack size``...), so a field added by a later release is recorded rather than lost. The prefix may be
``ptxas`` or ``ptxas-blackwell`` (the second binary in Triton's wheel). Properties of non-entry
(``__device__ __noinline__``) functions are kept apart from the entry kernels.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

_PREFIX = r"^\s*(?:ptxas[\w.-]*|nvlink)\s+(info|warning|error)\s*:\s*"
_LINE = re.compile(_PREFIX + r"(.*)$")
_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_BYTES = re.compile(r"(\d+) bytes ([A-Za-z_][\w ]*?(?:\[\d+\])?)(?=,|$)")
_TIME = re.compile(r"Compile time = ([\d.]+) ms")
_GMEM = re.compile(r"^(\d+) bytes gmem")
_TOO_MUCH = re.compile(r"Entry function '([^']+)' uses too much (\w+) data \((0x[0-9a-fA-F]+|\d+) bytes, "
                       r"(0x[0-9a-fA-F]+|\d+) max\)")
_SPILL_WARN = re.compile(r"Registers are spilled to local memory in function '([^']+)', (\d+) bytes spill stores, "
                         r"(\d+) bytes spill loads")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KernelUsage(_Strict):
    """What ptxas reports for one entry kernel on one architecture (all sizes in bytes)."""

    name: str
    arch: str
    registers: int | None = None
    barriers: int | None = None
    smem: int = 0
    """static shared memory; dynamic shared memory is a launch parameter and not in this report"""
    cmem: dict[str, int] = Field(default_factory=dict)
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    other: dict[str, int] = Field(default_factory=dict)
    """every other ``N bytes <what>`` figure of the "Used" line (lmem, cumulative stack size...)"""
    compile_ms: float | None = None
    notes: list[str] = Field(default_factory=list)
    """ptxas advisories naming this kernel (e.g. "(C7511) Potential Performance Loss: ...")"""

    @property
    def spill_bytes(self) -> int:
        return self.spill_stores + self.spill_loads


class FunctionFrame(_Strict):
    """Stack and spill figures of a non-entry device function (called from kernels)."""

    name: str
    arch: str | None = None
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0


class PtxasLimitError(_Strict):
    """``uses too much <space> data``: ptxas refuses a static allocation over the architecture's limit."""

    kernel: str
    space: str
    used: int
    limit: int


class PtxasReport(_Strict):
    kernels: list[KernelUsage] = Field(default_factory=list)
    functions: list[FunctionFrame] = Field(default_factory=list)
    gmem: int | None = None
    warnings: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    limit_errors: list[PtxasLimitError] = Field(default_factory=list)
    unparsed: list[str] = Field(default_factory=list)
    """ptxas lines that matched no known form (kept so a format change is visible, not silent)"""

    def kernel(self, name: str, arch: str | None = None) -> KernelUsage | None:
        for k in self.kernels:
            if k.name == name and (arch is None or k.arch == arch):
                return k
        return None


def _int(text: str) -> int:
    return int(text, 16) if text.lower().startswith("0x") else int(text)


def parse_ptxas(text: str) -> PtxasReport:
    """Parse everything ptxas said; lines that are not ptxas's are ignored (compiler warnings etc.)."""
    report = PtxasReport()
    entry: KernelUsage | None = None
    props_for: str | None = None
    arch: str | None = None
    advisories: list[str] = []
    for raw in text.splitlines():
        frame = _FRAME.match(raw)
        if frame is not None:
            stack, stores, loads = (int(g) for g in frame.groups())
            if entry is not None and props_for == entry.name:
                entry.stack_frame, entry.spill_stores, entry.spill_loads = stack, stores, loads
            elif props_for is not None:
                report.functions.append(FunctionFrame(name=props_for, arch=arch, stack_frame=stack,
                                                      spill_stores=stores, spill_loads=loads))
            props_for = None
            continue
        m = _LINE.match(raw)
        if m is None:
            continue
        level, body = m.group(1), m.group(2).strip()
        if level == "error":
            report.errors.append(body)
            too = _TOO_MUCH.search(body)
            if too is not None:
                report.limit_errors.append(PtxasLimitError(kernel=too.group(1), space=too.group(2),
                                                           used=_int(too.group(3)), limit=_int(too.group(4))))
            continue
        if level == "warning":
            report.warnings.append(body)
            spill = _SPILL_WARN.search(body)
            if spill is not None and entry is not None and entry.name == spill.group(1):
                entry.spill_stores = max(entry.spill_stores, int(spill.group(2)))
                entry.spill_loads = max(entry.spill_loads, int(spill.group(3)))
            continue
        if (e := _ENTRY.search(body)) is not None:
            arch = e.group(2)
            entry = KernelUsage(name=e.group(1), arch=arch)
            report.kernels.append(entry)
            props_for = None
        elif (p := _PROPS.search(body)) is not None:
            props_for = p.group(1)
        elif (u := _USED.search(body)) is not None and entry is not None:
            entry.registers = int(u.group(1))
            if (b := _BARRIERS.search(body)) is not None:
                entry.barriers = int(b.group(1))
            for value, what in _BYTES.findall(body):
                what = what.strip()
                if what == "smem":
                    entry.smem = int(value)
                elif what.startswith("cmem"):
                    entry.cmem[what] = int(value)
                else:
                    entry.other[what] = int(value)
        elif (t := _TIME.search(body)) is not None:
            if entry is not None:
                entry.compile_ms = float(t.group(1))
        elif (g := _GMEM.match(body)) is not None:
            report.gmem = int(g.group(1))
        elif body.startswith("("):
            advisories.append(body)  # e.g. "(C7511) Potential Performance Loss: ... in the function 'mm'"
        else:
            report.unparsed.append(body)
    # advisories come before or after the kernel they name, depending on the release
    for body in advisories:
        named = re.search(r"function '([^']+)'", body)
        targets = [k for k in report.kernels if named and k.name == named.group(1)]
        for k in targets:
            k.notes.append(body)
        if not targets:
            report.warnings.append(body)
    return report


_RESOURCE = re.compile(r"^\s*Function (\S+?):\s*$")
_FIELDS = re.compile(r"([A-Z_]+(?:\[\d+\])?):(\d+)")


def parse_cuobjdump_resources(text: str) -> dict[str, dict[str, int]]:
    """``cuobjdump --dump-resource-usage``: ``{function: {"REG": n, "SHARED": n, "CONSTANT[0]": n, ...}}``.

    Note that ``SHARED`` there includes the 1 KiB the driver reserves per block on sm_80 and newer."""
    out: dict[str, dict[str, int]] = {}
    current: str | None = None
    for line in text.splitlines():
        m = _RESOURCE.match(line)
        if m is not None:
            current = m.group(1)
            continue
        if current is not None and "REG:" in line:
            out[current] = {k: int(v) for k, v in _FIELDS.findall(line)}
            current = None
    return out
