"""What a kernel engineer reads in a Triton kernel's compiled code, for one target.

- Tensor cores: every contraction in the TTGIR (``tt.dot``, ``ttng.warp_group_dot``, or a reduction of a
  rank-3 product: ``tl.sum(a[:, :, None] * b[None, :, :])``) with the layout it was given and the
  mma/wgmma instructions of the PTX with their operand types. Concerns: a contraction of 16- or 8-bit
  data that runs on the CUDA cores (``tensor_cores_unused``); FP8 data converted to a wider type before
  the tensor-core op on a target with FP8 tensor cores (``fp8_upcast``); fp32 data rounded to tf32
  (``tf32_inputs``).
- Global memory: for each global load/store, how its address moves from one thread to the next
  (ttgir.Ttgir.index_strides) and the width of the PTX instructions that implement it. Concerns: no
  dimension with unit stride, so consecutive threads touch addresses a stride apart
  (``strided_access``); unit stride but one element per instruction where the tile leaves room for
  vectors (``unvectorised_access``).

Every observation quotes the IR lines (``ttgir:N``/``ptx:N``) and the source line it came from.
Efficiency findings are concerns (``warning``), never a correctness verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.compiled_code.ptx import GlobalAccess, MmaInstr, parse_ptx
from tools.compiled_code.smem import shared_accesses
from tools.compiled_code.ttgir import Frame, Op, Ttgir, elem_bits

# Rationale: FP8 tensor-core instructions exist from sm_89 (Ada) on; bf16/f16/tf32 mma from sm_80.
FP8_MMA_ARCH = 89
_CONTRACTIONS = ("tt.dot", "ttng.warp_group_dot", "tt.dot_scaled", "ttng.tc_gen5_mma")
_MEMDESC_OR_TENSOR = re.compile(r"(?:tensor|!ttg\.memdesc)<(?:\d+x)+(\w+)")
_PASS_THROUGH = ("ttg.convert_layout", "ttg.local_alloc", "ttg.local_load", "ttg.memdesc_trans", "ttg.memdesc_index",
                 "ttg.memdesc_subslice", "ttg.memdesc_reinterpret", "tt.trans", "tt.broadcast", "tt.expand_dims",
                 "tt.reshape", "tt.fp_to_fp", "arith.extf", "arith.truncf", "arith.sitofp", "tt.bitcast")
_GLOBAL_OPS = ("tt.load", "tt.store", "ttg.async_copy_global_to_local", "tt.atomic_rmw", "tt.atomic_cas")


class IrQuote(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    ir: Literal["ttgir", "ptx"]
    line: int
    text: str


class Observation(BaseModel):
    """One thing the compiled code shows, with the lines that show it."""

    model_config = ConfigDict(extra="forbid")

    code: str
    severity: Literal["info", "warning"]
    target: str
    message: str
    source_file: str | None = None
    source_line: int | None = None
    quotes: list[IrQuote] = Field(default_factory=list)


class CompiledReview(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kernel: str
    target: str
    tensor_core: list[dict[str, Any]] = Field(default_factory=list)
    contractions: list[dict[str, Any]] = Field(default_factory=list)
    global_accesses: list[dict[str, Any]] = Field(default_factory=list)
    shared_accesses: list[dict[str, Any]] = Field(default_factory=list)
    """Each ld.shared/st.shared with its estimated n-way bank conflict (tools/compiled_code/smem.py)."""
    observations: list[Observation] = Field(default_factory=list)

    @property
    def concerns(self) -> list[Observation]:
        return [o for o in self.observations if o.severity == "warning"]


def _arch_number(target: str) -> int | None:
    m = re.fullmatch(r"sm_(\d+)a?", target)
    return int(m.group(1)) if m else None


def _q(ir: Literal["ttgir", "ptx"], line: int, text: str) -> IrQuote:
    return IrQuote(ir=ir, line=line, text=text.strip()[:300])


def review_compiled(kernel: str, target: str, ttgir_text: str, ptx_text: str | None, *,
                    is_user_file: Callable[[str], bool], divisible_by_16: list[str] | None = None,
                    int_args: list[str] | None = None) -> CompiledReview:
    """Review one kernel compiled for one target. ``is_user_file`` tells a path of the submission's
    own sources (as the compiler recorded it) from Triton's library code."""
    ir = Ttgir(ttgir_text)
    mmas, accesses = parse_ptx(ptx_text) if ptx_text else ([], [])
    out = CompiledReview(kernel=kernel, target=target)
    counts: dict[tuple[str, str, str, str], int] = {}
    for m in mmas:
        key = (m.opcode.split(".")[0], m.shape, m.a_type, m.acc_type)
        counts[key] = counts.get(key, 0) + 1
    out.tensor_core = [{"instruction": k[0], "shape": k[1], "operand_type": k[2], "accumulator": k[3], "count": n}
                       for k, n in sorted(counts.items())]
    _contractions(ir, mmas, out, is_user_file, ptx_available=ptx_text is not None)
    _global_accesses(ir, accesses, out, is_user_file, divisible_by_16 or [], int_args or [])
    if ptx_text:
        shared_bank_conflicts(ptx_text, out)
    return out


# Rationale: 2-way conflicts are common in the layouts compilers pick (measured: Triton's FMA-dot operand
# loads in tests/kernels/compiled_matmul/bad_sum_matmul on sm_90) and rarely the bottleneck; from 4-way
# on, the layout does not fit the access (a column of an unpadded tile is 32-way). Lower degrees stay in
# the evidence's ``shared_accesses``.
BANK_CONFLICT_CONCERN = 4


def shared_bank_conflicts(ptx_text: str, out: CompiledReview) -> None:
    """Each shared-memory access's estimated bank-conflict degree; a ``bank_conflict`` concern (the
    worst instruction per source line) where it is ``BANK_CONFLICT_CONCERN``-way or more."""
    worst: dict[tuple[str | None, int | None], Any] = {}
    for a in shared_accesses(ptx_text):
        out.shared_accesses.append({"ptx_line": a.index, "instruction": a.text, "kind": a.kind,
                                    "width_bytes": a.width_bytes, "source_line": a.line, "degree": a.degree,
                                    "words": list(a.words)})
        if a.degree is not None and a.degree >= BANK_CONFLICT_CONCERN:
            key = (a.file, a.line)
            if key not in worst or a.degree > worst[key].degree:
                worst[key] = a
    for a in worst.values():
        lanes = ", ".join(f"lane {i}: word {w} (bank {w % 32})" for i, w in list(enumerate(a.words))[:4])
        out.observations.append(Observation(
            code="bank_conflict", severity="warning", target=out.target, source_file=a.file, source_line=a.line,
            message=(f"shared-memory {a.kind} of {a.width_bytes} B per thread is an estimated {a.degree}-way bank "
                     f"conflict (32 banks x 4 B; warp 0 of CTA 0, first loop iteration: {lanes}, ...): the warp's "
                     f"access is serialised {a.degree} times; padding the row by one word or an XOR swizzle spreads "
                     f"it over the banks"),
            quotes=[_q("ptx", a.index, a.text)]))


# -- tensor cores --------------------------------------------------------------------------------
def _operand_chain(ir: Ttgir, value: str) -> tuple[list[str], list[Op]]:
    """Element types seen walking back from a contraction operand, and the widening conversions."""
    types: list[str] = []
    widen: list[Op] = []
    seen = 0
    cur: str | None = value
    while cur is not None and seen < 40:
        seen += 1
        if cur in ir.iter_init:
            cur = ir.iter_init[cur]
            continue
        op = ir.defs.get(cur)
        if op is None:
            break
        elems = _MEMDESC_OR_TENSOR.findall(op.text.split(" : ", 1)[-1])
        types += [e for e in reversed(elems) if e not in types]
        if op.name in ("tt.fp_to_fp", "arith.extf", "arith.sitofp") and len(elems) >= 2 and \
                elem_bits(elems[0]) < elem_bits(elems[-1]):
            widen.append(op)
        if op.name in _PASS_THROUGH and op.operands:
            cur = op.operands[0]
            continue
        break
    return types, widen


def _float_like(t: str) -> bool:
    return t.startswith(("f", "bf", "i8"))


def _contractions(ir: Ttgir, mmas: list[MmaInstr], out: CompiledReview, is_user_file: Callable[[str], bool],
                  *, ptx_available: bool) -> None:
    arch = _arch_number(out.target)
    candidates: list[tuple[Op, list[str], bool, str]] = []
    for op in ir.ops:
        if op.name in _CONTRACTIONS:
            rt = op.result_type
            lay = ir.layout(rt.encoding if rt else None)
            on_tc = op.name != "tt.dot" or (lay is not None and lay.kind in ("nvidia_mma", "amd_mfma", "amd_wmma"))
            candidates.append((op, op.operands[:2], on_tc, "dot"))
        elif op.name == "tt.reduce" and op.operands:
            src = ir.defs.get(op.operands[0])
            rt = src.result_type if src else None
            if src is not None and src.name == "arith.mulf" and rt is not None and len(rt.shape) >= 3:
                candidates.append((op, src.operands[:2], False, "reduce_of_product"))
    for op, operands, on_tc, how in candidates:
        chains = [_operand_chain(ir, v) for v in operands]
        elems = [t for types, _ in chains for t in types if _float_like(t)]
        narrowest = min(elems, key=elem_bits) if elems else None
        widen = [w for _, ws in chains for w in ws]
        frame = ir.user_frame(op.loc, is_user_file)
        entry = {"op": op.name, "ttgir_line": op.index, "form": how, "tensor_cores": on_tc,
                 "data_type": narrowest, "operand_types": [c[0][0] if c[0] else None for c in chains],
                 "source_line": frame.line if frame else None}
        out.contractions.append(entry)
        quotes = [_q("ttgir", op.index, op.text)]
        near = [m for m in mmas if frame and m.line == frame.line] or mmas
        if not on_tc:
            if narrowest is not None and elem_bits(narrowest) <= 16 and (arch is None or arch >= 80):
                why = ("written as a reduction of a broadcast product" if how == "reduce_of_product" else
                       "its layout is #blocked (FMA), not an mma layout")
                none = " and the PTX has no mma/wgmma instruction" if ptx_available and not mmas else ""
                _observe(out, "tensor_cores_unused", "warning", frame, quotes,
                         f"a contraction of {narrowest} data runs on the CUDA cores, not the tensor cores: "
                         f"{why}{none}. Use tl.dot on {narrowest} operands (accumulating in fp32) to get "
                         f"mma/wgmma on {out.target}.")
            continue
        if ptx_available and not mmas:
            _observe(out, "tensor_cores_missing_in_ptx", "info", frame, quotes,
                     "the TTGIR assigns this contraction an mma layout but the PTX holds no mma/wgmma instruction")
            continue
        a_types = sorted({m.a_type for m in near})
        quotes += [_q("ptx", m.index, m.text) for m in near[:2]]
        if narrowest is not None and narrowest.startswith("f8") and arch is not None and arch >= FP8_MMA_ARCH \
                and a_types and not any(t.startswith("e") for t in a_types):
            mine = [w for w in widen if ir.user_frame(w.loc, is_user_file) is not None]
            if mine:
                w = mine[0]
                wframe = ir.user_frame(w.loc, is_user_file)
                _observe(out, "fp8_upcast", "warning", wframe or frame, [_q("ttgir", w.index, w.text), *quotes],
                         f"the operands are {narrowest} in memory but the kernel converts them to "
                         f"{'/'.join(a_types)} before the contraction, so {out.target} runs a {'/'.join(a_types)} "
                         f"tensor-core op ({near[0].opcode.split('.')[0]}) instead of an FP8 one: about half the "
                         f"FP8 throughput and twice the register/shared-memory footprint per tile. Pass the FP8 "
                         f"tiles to tl.dot directly.")
                continue
        if narrowest == "f32" and "tf32" in a_types:
            _observe(out, "tf32_inputs", "warning", frame, quotes,
                     "fp32 operands are rounded to tf32 (10-bit mantissa) for the tensor cores: relative error "
                     "about 1e-3 per product. Correct only if the task allows it; input_precision='ieee' keeps "
                     "fp32 (on the CUDA cores).")
            continue
        if narrowest is not None and narrowest.startswith("f8") and arch is not None and arch < FP8_MMA_ARCH:
            _observe(out, "no_fp8_tensor_cores", "info", frame, quotes,
                     f"{out.target} has no FP8 tensor cores; the compiler runs this FP8 contraction as "
                     f"{'/'.join(a_types)}")
            continue
        _observe(out, "tensor_cores_used", "info", frame, quotes,
                 f"contraction on the tensor cores: {near[0].opcode.split('.')[0]} {near[0].shape} with "
                 f"{'/'.join(a_types)} operands, {near[0].acc_type} accumulator")


def _observe(out: CompiledReview, code: str, severity: Literal["info", "warning"], frame: Frame | None,
             quotes: list[IrQuote], message: str) -> None:
    out.observations.append(Observation(code=code, severity=severity, target=out.target, message=message,
                                        source_file=frame.file if frame else None,
                                        source_line=frame.line if frame else None, quotes=quotes))


# -- global memory -------------------------------------------------------------------------------
def _stride_origin(ir: Ttgir, value: str) -> Op | None:
    """The first multiplication on the address path that makes a per-thread index non-unit."""
    seen = 0
    stack = [value]
    while stack and seen < 200:
        seen += 1
        v = stack.pop()
        v = ir.iter_init.get(v, v)
        op = ir.defs.get(v)
        if op is None:
            continue
        if op.name == "arith.muli":
            s = ir.index_strides(v)
            if s is not None and any(x not in (0, 1) for x in s[0]):
                return op
        if op.name in ("tt.addptr", "arith.addi", "arith.subi", "tt.broadcast", "tt.expand_dims",
                       "ttg.convert_layout", "arith.extsi", "arith.muli"):
            stack += op.operands
    return None


def _global_accesses(ir: Ttgir, accesses: list[GlobalAccess], out: CompiledReview,
                     is_user_file: Callable[[str], bool], div16: list[str], int_args: list[str]) -> None:
    threads = _threads(ir)
    for op in ir.ops:
        if op.name not in _GLOBAL_OPS or not op.operands:
            continue
        ptr_t = next((t for t in op.types if t.is_ptr), None)
        if ptr_t is None or ptr_t.numel < 2:
            continue
        lay = ir.layout(ptr_t.encoding)
        s = ir.index_strides(op.operands[0])
        strides = s[0] if s is not None else [None] * len(ptr_t.shape)
        frame = ir.user_frame(op.loc, is_user_file)
        ptx = _ptx_for_line(accesses, frame, is_user_file)
        widths = [a.width_bytes for a in ptx if a.width_bytes is not None]
        elem = ptr_t.elem
        ebytes = max(1, elem_bits(elem) // 8)
        live = [d for d, n in enumerate(ptr_t.shape) if n > 1]
        if any(strides[d] is None for d in live):
            pattern = "data-dependent (gather/scatter) or not analysable"
        elif all(strides[d] == 0 for d in live):
            pattern = "uniform (every thread the same address)"
        elif any(strides[d] == 1 for d in live):
            pattern = "contiguous"
        else:
            pattern = "strided"
        kind = {"tt.load": "load", "tt.store": "store", "ttg.async_copy_global_to_local": "load (async copy)"}.get(
            op.name, "atomic")
        entry = {"op": op.name, "kind": kind, "ttgir_line": op.index, "source_line": frame.line if frame else None,
                 "shape": ptr_t.shape, "element": elem, "strides_elements": strides, "pattern": pattern,
                 "layout": {"name": lay.name, **{k: lay.params.get(k) for k in
                                                 ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order")}}
                 if lay and lay.kind == "blocked" else (ptr_t.encoding or None),
                 "ptx_widths_bytes": sorted(set(widths)), "ptx_instructions": len(ptx)}
        out.global_accesses.append(entry)
        quotes = [_q("ttgir", op.index, op.text)] + [_q("ptx", a.index, a.text) for a in ptx[:2]]
        if pattern == "strided":
            origin = _stride_origin(ir, op.operands[0])
            oframe = ir.user_frame(origin.loc, is_user_file) if origin else None
            if origin is not None:
                quotes.insert(1, _q("ttgir", origin.index, origin.text))
            described = ", ".join(f"dim {d}: {'a runtime stride' if strides[d] == 'var' else f'{strides[d]} elements'}"
                                  for d in live)
            width = f"; the PTX moves {max(widths)} B per thread per instruction" if widths else ""
            useful = ebytes / 32
            _observe(out, "strided_access", "warning", frame, quotes,
                     f"global {kind} of {elem} with no unit-stride dimension ({described}"
                     + (f", introduced at line {oframe.line}" if oframe else "") + f"){width}: consecutive threads "
                     f"touch addresses a stride apart, so each warp instruction touches up to 32 separate 32-byte "
                     f"sectors to use {ebytes} B of each (about {useful:.0%} of the bytes moved are used). "
                     f"Reorganise the tile so the fastest-varying index walks contiguous memory.")
        elif pattern == "contiguous" and widths and max(widths) <= ebytes and ebytes < 16 and lay is not None \
                and lay.kind == "blocked" and threads:
            f = lay.order[0] if lay.order else len(ptr_t.shape) - 1
            tpw, wpc = lay.get("threadsPerWarp"), lay.get("warpsPerCTA")
            room = ptr_t.shape[f] // max(1, (tpw[f] if f < len(tpw) else 1) * (wpc[f] if f < len(wpc) else 1)) \
                if f < len(ptr_t.shape) else 0
            if room >= 2:
                unproven = [a for a in int_args if a not in div16]
                why = (f"integer arguments not known to be multiples of 16 in this launch: {', '.join(unproven)}"
                       if unproven else "the base address or the mask is not provably 16-byte aligned")
                _observe(out, "unvectorised_access", "warning", frame, quotes,
                         f"global {kind} of contiguous {elem} issued one element ({max(widths)} B) per thread per "
                         f"instruction, although the tile gives each thread {room} elements along its contiguous "
                         f"dimension: Triton could not prove the alignment it needs for vector accesses ({why}). "
                         f"Pad or align rows to 16 bytes, or give Triton the facts (tl.multiple_of/max_contiguous).")


def _ptx_for_line(accesses: list[GlobalAccess], frame: Frame | None,
                  is_user_file: Callable[[str], bool]) -> list[GlobalAccess]:
    if frame is None:
        return []
    mine = [a for a in accesses if a.file is not None and is_user_file(a.file)]
    exact = [a for a in mine if a.line == frame.line]
    return exact or [a for a in mine if frame.line in a.recent]


def _threads(ir: Ttgir) -> int | None:
    m = re.search(r'"ttg\.num-warps" = (\d+)', ir.text)
    t = re.search(r'"ttg\.threads-per-warp" = (\d+)', ir.text)
    return int(m.group(1)) * int(t.group(1)) if m and t else None
