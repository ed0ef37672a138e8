"""Shared-memory bank conflicts, estimated from the PTX's ``ld.shared``/``st.shared`` address patterns.

Shared memory has 32 banks of 4 bytes: word ``w`` (byte address // 4) lives in bank ``w % 32``. A warp's
access is served in one pass per *phase* (all 32 lanes for accesses of up to 4 bytes per lane, half-warps
for 8 bytes, quarter-warps for 16 bytes); within a phase, lanes reading distinct words of one bank are
serialised, lanes reading the same word are not (broadcast). The conflict degree of an instruction is the
largest number of distinct words any bank serves in any phase: 1 is conflict-free, n an n-way conflict.

The address of every lane of warp 0 of CTA 0 is computed by running the integer instructions of the PTX
once, in text order, on 32 lanes (``%tid.x`` = lane, ``%tid.y/z`` and ``%ctaid.*`` = 0, shared-memory
symbols at address 0; loaded parameters and memory are unknown). Branches are not followed, so a loop
counts as its first iteration, and predicates are not evaluated (every lane is assumed to access). It is
an estimate; an access whose address depends on anything unknown is listed without a degree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LANES = 32
BANKS = 32
BANK_BYTES = 4

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")
_SHARED_DECL = re.compile(r"\.shared\s+(?:\.align\s+\d+\s+)?\.\w+\s+([\w$]+)")
_INSTR = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)\s*(.*?);")
_ACCESS = re.compile(r"^(ld|st)\.shared(?:::cta)?((?:\.\w+)*)$")
_ADDR = re.compile(r"\[\s*([%\w$]+)\s*(?:\+\s*(-?\w+))?\s*\]")
_TYPE_BYTES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "b32": 4, "u32": 4,
               "s32": 4, "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16}

Lanes = list[int] | None


@dataclass(frozen=True)
class SharedAccess:
    index: int  # 1-based PTX line
    text: str
    kind: str  # "load" | "store"
    width_bytes: int  # per lane
    file: str | None
    line: int | None
    degree: int | None  # n-way conflict; None when the address is not known for every lane
    words: tuple[int, ...] = ()  # lane 0..31's first word, when known


def _int(tok: str) -> int | None:
    tok = tok.strip()
    try:
        if tok.lower().startswith(("0x", "-0x")):
            return int(tok, 16)
        if re.fullmatch(r"-?\d+", tok):
            return int(tok)
    except ValueError:
        return None
    return None


def _mask(op: str) -> int:
    return (1 << 64) - 1 if any(t in op for t in (".b64", ".u64", ".s64", ".wide")) else (1 << 32) - 1


def _binary(name: str, a: int, b: int) -> int | None:
    if name == "add":
        return a + b
    if name == "sub":
        return a - b
    if name == "mul":
        return a * b
    if name == "shl":
        return a << b if b < 64 else 0
    if name == "shr":
        return a >> b if b < 64 else 0
    if name == "and":
        return a & b
    if name == "or":
        return a | b
    if name == "xor":
        return a ^ b
    if name == "min":
        return min(a, b)
    if name == "max":
        return max(a, b)
    return None


class _Machine:
    def __init__(self, shared_symbols: set[str]) -> None:
        self.regs: dict[str, Lanes] = {}
        self.shared = shared_symbols

    def value(self, tok: str) -> Lanes:
        tok = tok.strip()
        if tok in ("%tid.x", "%laneid"):
            return list(range(LANES))
        if tok in ("%tid.y", "%tid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z"):
            return [0] * LANES
        if tok.startswith("%"):
            return self.regs.get(tok)
        if tok in self.shared:
            return [0] * LANES
        n = _int(tok)
        return [n] * LANES if n is not None else None

    def step(self, opcode: str, operands: list[str]) -> None:
        if not operands or not operands[0].startswith("%") or opcode.startswith(("st.", "bar", "bra", "ret")):
            return
        dst, srcs = operands[0], operands[1:]
        name = opcode.split(".")[0]
        vals = [self.value(s) for s in srcs]
        out: Lanes = None
        mask = _mask(opcode)
        if name in ("mov", "cvt", "cvta") and len(vals) == 1:
            out = vals[0]
        elif name in ("add", "sub", "mul", "shl", "shr", "and", "or", "xor", "min", "max") and len(vals) == 2 \
                and all(v is not None for v in vals):
            a, b = vals
            assert a is not None and b is not None
            res = [_binary(name, x & mask, y & mask) for x, y in zip(a, b, strict=True)]
            out = None if any(r is None for r in res) else [int(r) & mask for r in res]  # type: ignore[arg-type]
        elif name == "mad" and len(vals) == 3 and all(v is not None for v in vals):
            a, b, c = vals
            assert a is not None and b is not None and c is not None
            out = [((x & mask) * (y & mask) + (z & mask)) & mask for x, y, z in zip(a, b, c, strict=True)]
        elif name == "not" and len(vals) == 1 and vals[0] is not None:
            out = [~x & mask for x in vals[0]]
        self.regs[dst] = out


def _split_operands(rest: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in rest:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def conflict_degree(addresses: list[int], width: int) -> int:
    """The n-way conflict of one warp access: ``addresses`` per lane (bytes), ``width`` bytes per lane."""
    phase = LANES if width <= 4 else LANES * 4 // width
    words_per_lane = max(1, width // BANK_BYTES)
    worst = 1
    for start in range(0, len(addresses), phase):
        banks: dict[int, set[int]] = {}
        for addr in addresses[start:start + phase]:
            for k in range(words_per_lane):
                word = addr // BANK_BYTES + k
                banks.setdefault(word % BANKS, set()).add(word)
        worst = max(worst, max((len(w) for w in banks.values()), default=1))
    return worst


def shared_accesses(ptx: str) -> list[SharedAccess]:
    """Every ``ld.shared``/``st.shared`` of ``ptx`` with its conflict degree where its address is known."""
    # nvcc writes its .file directives after the code: read them all first
    files = {m.group(1): m.group(2) for m in map(_FILE.match, ptx.splitlines()) if m}
    shared = {m.group(1) for m in _SHARED_DECL.finditer(ptx)}
    machine = _Machine(shared)
    out: list[SharedAccess] = []
    cur_file: str | None = None
    cur_line: int | None = None
    for i, raw in enumerate(ptx.splitlines(), 1):
        if _FILE.match(raw):
            continue
        if lm := _LOC.match(raw):
            cur_file, cur_line = files.get(lm.group(1)), int(lm.group(2))
            continue
        m = _INSTR.match(raw)
        if m is None or raw.strip().startswith(("//", ".")):
            continue
        opcode, operands = m.group(1), _split_operands(m.group(2))
        acc = _ACCESS.match(opcode)
        if acc is None:
            machine.step(opcode, operands)
            continue
        kind = "load" if acc.group(1) == "ld" else "store"
        mods = acc.group(2).split(".")
        vec = next((int(x[1:]) for x in mods if re.fullmatch(r"v\d", x)), 1)
        size = next((_TYPE_BYTES[x] for x in mods if x in _TYPE_BYTES), 4)
        addr_tok = operands[1] if kind == "load" and len(operands) > 1 else operands[0] if operands else ""
        am = _ADDR.search(addr_tok)
        degree, words = None, ()
        if am is not None:
            base = machine.value(am.group(1))
            off = _int(am.group(2)) if am.group(2) else 0
            if base is not None and off is not None:
                addrs = [b + off for b in base]
                degree = conflict_degree(addrs, vec * size)
                words = tuple(a // BANK_BYTES for a in addrs)
        if kind == "load":
            machine.step("ld.shared", operands[:1])  # the loaded value is unknown
        out.append(SharedAccess(i, raw.strip()[:200], kind, vec * size, cur_file, cur_line, degree, words))
    return out
