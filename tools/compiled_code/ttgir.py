"""Reading Triton's TTGIR text: source locations, layouts, operations, and how each global access's
address moves from one thread to the next.

Only what the compiled-code review needs is parsed, from the text Triton itself prints (``asm["ttgir"]``):
every ``#locN`` alias resolved to ``file:line:col`` frames, every ``#blocked`` layout, and one record per
operation line. ``index_strides`` is a small abstract interpretation of the address arithmetic: for each
tensor dimension, how many elements the address moves when the index along that dimension grows by one
(0 uniform, an integer, ``"var"`` a runtime value, ``None`` not analysable, e.g. a gather).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Union

Stride = Union[int, str, None]  # int (elements), "var" (a runtime scalar), None (unknown)

_LOC_DEF = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
_LOC_REF = re.compile(r"loc\((#loc\d*)\)\s*$")
_FILE_LOC = re.compile(r'^"([^"]+)":(\d+):(\d+)$')
_NAMED_LOC = re.compile(r'^"[^"]*"\((#loc\d*)\)$')
_CALLSITE = re.compile(r"^callsite\((#loc\d*) at (#loc\d*)\)$")
_FUSED = re.compile(r"^fused\[(.*)\]$")
_LAYOUT = re.compile(r"^(#[\w]+) = #ttg\.(blocked|nvidia_mma|amd_mfma|amd_wmma|nvmma_shared|swizzled_shared|"
                     r"shared)<\{(.*)\}>\s*$")
_OP = re.compile(r'^\s*(?:(%[\w.$-]+)(?::\d+)?(?:, %[\w.$-]+)*\s*=\s*)?"?([a-z_]+\.[a-z_.]+)"?(.*)$')
_TENSOR = re.compile(r"tensor<((?:\d+x)+)(!tt\.ptr<(\w+)>|\w+)(?:, (#[\w.]+(?:<\{[^{}]*\}>)?))?>")
_ITER_ARGS = re.compile(r"iter_args\((.*?)\)\s*->")
_FUNC_ARG = re.compile(r"(%[\w.$-]+): ([^{},]+?)(?: \{[^}]*\})? loc\(")
_INT_CONST = re.compile(r"arith\.constant (?:dense<)?(-?\d+)>? : ")


@dataclass(frozen=True)
class Frame:
    file: str
    line: int
    col: int


@dataclass
class Layout:
    name: str
    kind: str
    params: dict[str, Any]

    @property
    def order(self) -> list[int]:
        return list(self.params.get("order", []))

    def get(self, key: str) -> list[int]:
        return list(self.params.get(key, []))


@dataclass
class TensorType:
    shape: list[int]
    elem: str  # f16, bf16, f32, f8E4M3FN, i32 ...; for pointer tensors the pointee
    is_ptr: bool
    encoding: str | None

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n


@dataclass
class Op:
    index: int  # 1-based line in the TTGIR file
    text: str
    result: str | None
    name: str
    operands: list[str]
    loc: str | None
    types: list[TensorType] = field(default_factory=list)

    @property
    def result_type(self) -> TensorType | None:
        return self.types[-1] if self.types else None


def _params(body: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in re.finditer(r"(\w+) = (\[[^\]]*\]|[^,]+)", body):
        key, val = m.group(1), m.group(2).strip()
        if val.startswith("["):
            out[key] = [int(x) for x in re.findall(r"-?\d+", val)]
        else:
            out[key] = int(val) if re.fullmatch(r"-?\d+", val) else val
    return out


def elem_bits(elem: str) -> int:
    e = elem.lower()
    if e.startswith("f8") or e in ("i8", "u8"):
        return 8
    m = re.search(r"(\d+)$", e)
    if e in ("bf16",):
        return 16
    return int(m.group(1)) if m else 32


class Ttgir:
    """One TTGIR module's text, parsed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines()
        self.locs: dict[str, str] = {}
        self.layouts: dict[str, Layout] = {}
        self.ops: list[Op] = []
        self.defs: dict[str, Op] = {}
        self.iter_init: dict[str, str] = {}
        self.func_args: dict[str, str] = {}
        for i, raw in enumerate(self.lines, 1):
            line = raw.strip()
            if m := _LOC_DEF.match(line):
                self.locs[m.group(1)] = m.group(2)
                continue
            if m := _LAYOUT.match(line):
                self.layouts[m.group(1)] = Layout(m.group(1), m.group(2), _params(m.group(3)))
                continue
            if line.startswith("tt.func"):
                for a in _FUNC_ARG.finditer(line):
                    self.func_args[a.group(1)] = a.group(2)
                continue
            m = _OP.match(raw)
            if m is None or line.startswith(("#", "module", "^bb", "}")):
                continue
            result, name, rest = m.group(1), m.group(2), m.group(3)
            loc = (lm.group(1) if (lm := _LOC_REF.search(line)) else None)
            body = rest.split(" : ", 1)[0] if name != "scf.for" else rest
            operands = re.findall(r"%[\w.$-]+", body)
            types = [TensorType([int(s) for s in t.group(1).rstrip("x").split("x")],
                                t.group(3) or t.group(2), t.group(3) is not None, t.group(4))
                     for t in _TENSOR.finditer(rest)]
            op = Op(i, raw.rstrip(), result, name, operands, loc, types)
            self.ops.append(op)
            if result:
                self.defs[result] = op
            if name == "scf.for" and (it := _ITER_ARGS.search(line)):
                for pair in it.group(1).split(","):
                    if "=" in pair:
                        k, v = (s.strip() for s in pair.split("=", 1))
                        self.iter_init[k] = v

    # -- locations ---------------------------------------------------------------------------
    def frames(self, loc: str | None, depth: int = 0) -> list[Frame]:
        """Source frames of a location, innermost first (a callsite's callee, then where it was called)."""
        if loc is None or depth > 40:
            return []
        body = self.locs.get(loc, loc if not loc.startswith("#") else "")
        if m := _FILE_LOC.match(body):
            return [Frame(m.group(1), int(m.group(2)), int(m.group(3)))]
        if m := _NAMED_LOC.match(body):
            return self.frames(m.group(1), depth + 1)
        if m := _CALLSITE.match(body):
            return self.frames(m.group(1), depth + 1) + self.frames(m.group(2), depth + 1)
        if m := _FUSED.match(body):
            out: list[Frame] = []
            for part in re.findall(r"#loc\d*", m.group(1)):
                out += self.frames(part, depth + 1)
            return out
        return []

    def user_frame(self, loc: str | None, is_user_file: Any) -> Frame | None:
        for f in self.frames(loc):
            if is_user_file(f.file):
                return f
        return None

    # -- layouts -----------------------------------------------------------------------------
    def layout(self, encoding: str | None) -> Layout | None:
        if not encoding:
            return None
        return self.layouts.get(encoding.split("<", 1)[0])

    # -- address arithmetic ------------------------------------------------------------------
    def index_strides(self, value: str) -> tuple[list[Stride], int | None] | None:
        """(per-dimension strides in elements, the value if it is a known uniform integer), or None
        for a scalar whose definition is outside this module's arithmetic."""
        return self._strides(value, 0, {})

    def _strides(self, value: str, depth: int, memo: dict[str, Any]) -> tuple[list[Stride], int | None] | None:
        if value in memo:
            return memo[value]
        memo[value] = None  # cycles (loop-carried values) end as unknown
        out = self._strides_uncached(value, depth, memo)
        memo[value] = out
        return out

    def _strides_uncached(self, value: str, depth: int, memo: dict[str, Any]) -> tuple[list[Stride], int | None] | None:
        if depth > 200:
            return None
        if value in self.iter_init:
            # Rationale: a loop-carried pointer or index is its initial value advanced by a uniform step
            # each iteration (``ptrs += BK``); the per-thread pattern is the initial one.
            return self._strides(self.iter_init[value], depth + 1, memo)
        if value in self.func_args:
            return [], None
        op = self.defs.get(value)
        if op is None:
            return [], None
        rt = op.result_type
        rank = len(rt.shape) if rt else 0
        zeros: list[Stride] = [0] * rank
        n = op.name
        if n == "arith.constant":
            m = _INT_CONST.search(op.text)
            return zeros, int(m.group(1)) if m else None
        if n == "tt.make_range":
            start = re.search(r"start = (-?\d+)", op.text)
            return [1] * max(rank, 1), int(start.group(1)) if start and rank == 0 else None
        if n in ("tt.get_program_id", "tt.get_num_programs"):
            return [], None
        args = [self._strides(o, depth + 1, memo) for o in op.operands]
        if n == "tt.splat":
            return zeros, args[0][1] if args and args[0] else None
        if n == "tt.expand_dims":
            a = args[0] if args else None
            ax = re.search(r"axis = (\d+)", op.text)
            if a is None or ax is None:
                return None
            s = list(a[0])
            s.insert(int(ax.group(1)), 0)
            return s, a[1]
        if n in ("tt.broadcast", "ttg.convert_layout", "arith.extsi", "arith.extui", "arith.trunci",
                 "arith.index_cast", "tt.int_to_ptr", "tt.ptr_to_int", "tt.bitcast"):
            a = args[0] if args else None
            if a is None:
                return None
            s = a[0] if len(a[0]) == rank else (a[0] + [0] * (rank - len(a[0])) if not a[0] else None)
            if s is None:
                return None
            return [0 if rt and rt.shape[d] == 1 else s[d] for d in range(rank)], a[1]
        if n in ("arith.addi", "arith.subi", "tt.addptr") and len(args) == 2:
            a, b = args
            if a is None or b is None:
                return None
            sa, sb = _fit(a[0], rank), _fit(b[0], rank)
            const = None
            if a[1] is not None and b[1] is not None:
                const = a[1] + b[1] if n != "arith.subi" else a[1] - b[1]
            return [_add(x, y) for x, y in zip(sa, sb)], const
        if n == "arith.muli" and len(args) == 2:
            a, b = args
            if a is None or b is None:
                return None
            sa, sb = _fit(a[0], rank), _fit(b[0], rank)
            if all(x == 0 for x in sa):
                return [_scale(y, a[1]) for y in sb], (a[1] * b[1] if a[1] is not None and b[1] is not None else None)
            if all(y == 0 for y in sb):
                return [_scale(x, b[1]) for x in sa], None
            return [0 if x == 0 and y == 0 else None for x, y in zip(sa, sb)], None
        if n in ("arith.divsi", "arith.divui", "arith.remsi", "arith.remui", "arith.andi", "arith.ori",
                 "arith.shrsi", "arith.shrui", "arith.shli", "arith.maxsi", "arith.minsi", "arith.select"):
            known = [a for a in args if a is not None]
            if len(known) == len(args) and all(all(x == 0 for x in _fit(a[0], rank)) for a in known):
                return zeros, None
            return [None] * rank, None
        if rank == 0:
            return [], None  # a scalar computed some other way: uniform across threads
        return [None] * rank, None


def _fit(s: list[Stride], rank: int) -> list[Stride]:
    return s if len(s) == rank else ([0] * rank if not s else s + [0] * (rank - len(s)))


def _add(x: Stride, y: Stride) -> Stride:
    if x is None or y is None:
        return None
    if x == 0:
        return y
    if y == 0:
        return x
    if isinstance(x, int) and isinstance(y, int):
        return x + y
    return "var"


def _scale(x: Stride, c: int | None) -> Stride:
    if x is None:
        return None
    if x == 0 or c == 0:
        return 0
    if c is None or not isinstance(x, int):
        return "var"
    return x * c
