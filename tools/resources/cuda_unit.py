"""A device-only translation unit: the kernels of a CUDA source without its PyTorch host code.

Compiling a load_inline source as PyTorch does means parsing torch/types.h (and often
torch/extension.h) in nvcc's device pass: 13-45 s per architecture on two cores, measured here. The
kernels' register and shared-memory figures do not depend on host code, so the fast path keeps only
what device code can need (preprocessor lines other than torch/pybind includes, ``__global__`` /
``__device__`` / ``__constant__`` declarations, types, constants, templates) and instantiates template
kernels for the template arguments written at their launch sites. When kept code refers to
torch/ATen/c10, or a template kernel has no concrete launch, the caller compiles the full source
with PyTorch's headers instead. Dropped lines become blank lines, so nvcc's line numbers still point
into the original source.
"""

from __future__ import annotations

import re

from tools.engine.cuda_sources import launch_sites, strip_comments

PRELUDE = ("#include <cuda.h>", "#include <cuda_runtime.h>", "#include <cuda_fp16.h>", "#include <cuda_bf16.h>",
           "#include <cstdint>", "#include <cstddef>", "#include <cmath>", "#include <cfloat>", "#include <climits>",
           "#include <algorithm>", "#include <limits>", "#include <type_traits>", "#include <utility>")
_HOST_INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"](?:torch|ATen|c10|caffe2|pybind11|Python\.h)")
_TORCH_REF = re.compile(r"\b(?:torch|at|c10|caffe2|pybind11|py)::|\bAT_[A-Z_]+\b|\bTORCH_[A-Z_]+\b|\bC10_[A-Z_]+\b")
_DEVICE = re.compile(r"\b__(?:global|device|constant|managed|shared)__\b")
_TYPE_DECL = re.compile(r"^\s*(?:template\s*<[^{;]*>\s*)?(?:struct|class|union|enum|typedef|using|static_assert)\b")
_CONST_DECL = re.compile(r"^\s*(?:static\s+)?(?:constexpr|const)\b[^(]*=")
_SCOPE = re.compile(r"^\s*(namespace\s*\w*|extern\s+\"C\"(?:\+\+)?)\s*$")


def _segments(text: str) -> list[tuple[int, int]]:
    """Top-level declarations as (start, end) offsets: preprocessor lines, ``...;`` and ``...{...}``."""
    out: list[tuple[int, int]] = []
    i, n, start, depth = 0, len(text), None, 0
    while i < n:
        ch = text[i]
        if start is None:
            if ch.isspace():
                i += 1
                continue
            if ch == "#":
                end = i
                while True:
                    nl = text.find("\n", end)
                    if nl == -1:
                        end = n
                        break
                    if text[nl - 1] == "\\":
                        end = nl + 1
                        continue
                    end = nl
                    break
                out.append((i, end))
                i = end
                continue
            start = i
        if ch in "\"'":
            close = i + 1
            while close < n and text[close] != ch:
                close += 2 if text[close] == "\\" else 1
            i = close + 1
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                j = i + 1
                while j < n and text[j] in " \t":
                    j += 1
                end = j + 1 if j < n and text[j] == ";" else i + 1
                out.append((start, end))
                start, i = None, end
                continue
        elif ch == ";" and depth == 0:
            out.append((start, i + 1))
            start = None
        i += 1
    if start is not None:
        out.append((start, n))
    return out


def _keep(segment: str) -> bool:
    head = segment.split("{", 1)[0]
    if segment.lstrip().startswith("#"):
        return not _HOST_INCLUDE.match(segment)
    if _DEVICE.search(head) or (_DEVICE.search(segment) and _TYPE_DECL.match(head)):
        return True
    if re.match(r"^\s*using\s+namespace\s+(?:torch|at|c10|pybind11|py)\b", segment):
        return False
    return bool(_TYPE_DECL.match(head) or _CONST_DECL.match(head))


def _filter(text: str) -> str:
    kept = [ch if ch == "\n" else " " for ch in text]
    for start, end in _segments(text):
        seg = text[start:end]
        head = seg.split("{", 1)[0]
        if "{" in seg and _SCOPE.match(head) and not _DEVICE.search(head):
            body_start = start + seg.index("{") + 1
            inner = _filter(text[body_start:end - 1])
            kept[start:body_start] = list(text[start:body_start])
            kept[body_start:end - 1] = list(inner)
            kept[end - 1:end] = list(text[end - 1:end])
            continue
        if _keep(seg):
            kept[start:end] = list(seg)
    return "".join(kept)


def _template_kernels(text: str) -> list[str]:
    names = []
    for m in re.finditer(r"template\s*<[^{;]*?>\s*__global__\s[^(;{}]*?(\w+)\s*\(",
                         re.sub(r"__launch_bounds__\s*\([^)]*\)", " ", text)):
        names.append(m.group(1))
    return names


def device_only_unit(cuda_text: str) -> tuple[str | None, str]:
    """``(unit, note)``; ``unit`` is None when the fast path does not apply, ``note`` says why."""
    clean = strip_comments(cuda_text)
    body = _filter(clean)
    if (ref := _TORCH_REF.search(body)) is not None:
        line = body.count("\n", 0, ref.start()) + 1
        return None, f"device code refers to PyTorch ({ref.group(0)!r} at line {line})"
    explicit = set(re.findall(r"template\s+__global__\s[^(;]*?(\w+)\s*<", clean))
    instances: list[str] = []
    for name in _template_kernels(body):
        sites = [s for s in launch_sites(clean) if s.kernel == name and s.template_args]
        if not sites and name not in explicit:
            return None, f"template kernel {name} has no launch with explicit template arguments"
        for s in sites:
            inst = f"(void*)&{name}<{s.template_args}>"
            if inst not in instances:
                instances.append(inst)
    extra = [f"static void* const kreview_instance_{i} = {inst};" for i, inst in enumerate(instances)]
    unit = "\n".join([*PRELUDE, "#line 1", body, *extra]) + "\n"
    note = "device-only unit (host code and PyTorch headers left out)"
    if instances:
        note += f"; template kernels instantiated as used at their launch sites: {', '.join(instances)}"
    return unit, note
