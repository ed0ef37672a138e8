"""Reading PTX (Triton's, or nvcc's) and SASS text for the instructions a kernel engineer looks at:
tensor-core ops with their operand types, and global memory accesses with their width per thread.

Each instruction keeps its line in the file and the source line of the ``.loc`` directive before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")
_MMA = re.compile(r"^\s*(?:@!?%p\w+\s+)?(wgmma\.mma_async|mma\.sync)\.[\w.:]+")
_GLOBAL = re.compile(r"^\s*(?:@!?%p\w+\s+)?((?:ld|st)\.global[\w.:]*|cp\.async\.(?:ca|cg)\.shared\.global[\w.:]*|"
                     r"cp\.async\.bulk\.tensor[\w.:]*|cp\.async\.bulk\.global[\w.:]*|"
                     r"cp\.async\.bulk\.shared::\w+\.global[\w.:]*)\s")
_CP_SIZE = re.compile(r"\],\s*(0x[0-9a-fA-F]+|\d+)")
# Rationale: LLVM sometimes attributes an inline-asm access to a neighbouring statement's .loc (seen
# for a pipelined load in a loop); an access matches a source line exactly first, else within this window.
RECENT_LOCS = 4
_TYPES = ("f16", "bf16", "tf32", "e4m3", "e5m2", "e2m1", "e3m2", "e2m3", "f32", "f64", "s8", "u8", "s4", "u4",
          "s32", "b1")


@dataclass(frozen=True)
class Instr:
    index: int  # 1-based line in the file
    text: str
    opcode: str
    file: str | None  # the source file of the nearest preceding .loc
    line: int | None
    recent: tuple[int, ...] = ()  # source lines of the few .loc directives before it, nearest first


@dataclass(frozen=True)
class MmaInstr(Instr):
    shape: str = ""
    a_type: str = ""
    b_type: str = ""
    acc_type: str = ""


@dataclass(frozen=True)
class GlobalAccess(Instr):
    kind: str = "load"  # "load" | "store" | "async_copy" | "tma"
    width_bytes: int | None = None  # per thread per instruction; None for TMA (the whole tile)


def parse_ptx(text: str) -> tuple[list[MmaInstr], list[GlobalAccess]]:
    files: dict[str, str] = {}
    for m in _FILE.finditer(text):
        files[m.group(1)] = m.group(2)
    for raw in text.splitlines():
        if fm := _FILE.match(raw):
            files[fm.group(1)] = fm.group(2)
    mmas: list[MmaInstr] = []
    accesses: list[GlobalAccess] = []
    cur_file: str | None = None
    cur_line: int | None = None
    recent: list[int] = []
    for i, raw in enumerate(text.splitlines(), 1):
        if m := _LOC.match(raw):
            cur_file, cur_line = files.get(m.group(1)), int(m.group(2))
            recent = [cur_line] + [x for x in recent if x != cur_line][:RECENT_LOCS - 1]
            continue
        if m := _MMA.match(raw):
            opcode = raw.split()[0] if not raw.strip().startswith("@") else raw.split()[1]
            parts = opcode.split(".")
            shape = next((p for p in parts if re.fullmatch(r"m\d+n\d+k\d+", p)), "")
            types = [p for p in parts if p in _TYPES]
            if len(types) >= 3:
                mmas.append(MmaInstr(i, raw.strip(), opcode, cur_file, cur_line, tuple(recent), shape, types[1], types[2], types[0]))
            continue
        if m := _GLOBAL.match(raw):
            opcode = m.group(1)
            kind, width = _access(opcode, raw)
            accesses.append(GlobalAccess(i, raw.strip(), opcode, cur_file, cur_line, tuple(recent), kind, width))
    return mmas, accesses


def _access(opcode: str, raw: str) -> tuple[str, int | None]:
    if opcode.startswith("cp.async.bulk"):
        return "tma", None
    if opcode.startswith("cp.async"):
        m = _CP_SIZE.search(raw.split(opcode, 1)[1])
        return "async_copy", (int(m.group(1), 0) if m else None)
    parts = opcode.split(".")
    vec = next((int(p[1:]) for p in parts if re.fullmatch(r"v\d", p)), 1)
    bits = next((int(p[1:]) for p in reversed(parts) if re.fullmatch(r"[bufs]\d+", p)), None)
    return ("load" if opcode.startswith("ld") else "store"), (vec * bits // 8 if bits else None)


# -- SASS (CUDA C through nvcc: no PTX is kept, the cubin is disassembled) --------------------------
_SASS_MMA = re.compile(r"\b([HIQO]?[HG]?MMA|HGMMA|QGMMA|IMMA|HMMA|DMMA)\.([\w.]+)")
_SASS_MEM = re.compile(r"\b(LDG|STG)((?:\.[\w]+)*)\b")


def sass_summary(text: str) -> dict[str, dict[str, int]]:
    """Counts of tensor-core opcodes and of global load/store widths in a SASS listing."""
    mma: dict[str, int] = {}
    mem: dict[str, int] = {}
    for raw in text.splitlines():
        if "/*" not in raw:
            continue
        body = raw.split("*/", 1)[-1] if raw.strip().startswith("/*") else raw
        if m := _SASS_MMA.search(body):
            key = f"{m.group(1)}.{m.group(2)}"
            mma[key] = mma.get(key, 0) + 1
        if m := _SASS_MEM.search(body):
            mods = m.group(2).split(".")
            width = next((int(x) // 8 for x in mods if x in ("64", "128")), None)
            if width is None:
                width = 1 if any(x in ("U8", "S8") for x in mods) else 2 if any(x in ("U16", "S16") for x in mods) \
                    else 4
            key = f"{m.group(1)} {width} B"
            mem[key] = mem.get(key, 0) + 1
    return {"tensor_core": mma, "global_access": mem}
