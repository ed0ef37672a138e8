"""The many-calls probe's size (tools/integrity/probe_size.py): the full run wherever the source could keep
something between calls, the short one only where the static read finds nothing (no false "short")."""

from __future__ import annotations

import textwrap

import pytest

import tools.integrity.many_calls as M
from tests.kernelfiles import KERNELS
from tools.integrity.probe_size import SHORT_CALLS, kept_by

HEAD = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
"""

CLEAN = HEAD + """
BLOCK = 1024
CONFIG = dict(BLOCK=1024, num_warps=4)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        out.zero_()
        k[(triton.cdiv(x.numel(), BLOCK),)](x, out, x.numel(), BLOCK=CONFIG["BLOCK"])
        return out
"""


def _with(forward_body: str, extra: str = "", init: str = "") -> str:
    body = textwrap.indent(textwrap.dedent(forward_body).strip(), " " * 8)
    init_body = textwrap.indent(textwrap.dedent(init).strip(), " " * 8) if init else ""
    return HEAD + textwrap.dedent(extra) + f"""

class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()
{init_body}

    def forward(self, x):
{body}
        return x
"""


def test_a_kernel_with_nothing_to_keep_gets_the_short_run() -> None:
    assert kept_by({"submission.py": CLEAN}) == []
    assert 8 * 3 <= SHORT_CALLS < M.MANY_CALLS  # three rounds of the pattern, at least


def test_a_pallas_body_writing_its_own_output_ref_is_not_state() -> None:
    src = """
import jax.numpy as jnp
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    @pl.when(pl.program_id(1) == 0)
    def _init():
        o_ref[...] = jnp.zeros_like(o_ref)

    o_ref[...] += x_ref[...].sum(axis=1, keepdims=True)
"""
    assert kept_by({"submission.py": src}) == []


@pytest.mark.parametrize(("why", "source"), [
    ("global", _with("global _N\n_N += 1", extra="_N = 0\n")),
    ("container", _with("_SEEN[x.shape] = x", extra="_SEEN = {}\n")),
    ("instance attribute assigned on a call", _with("self._last = x")),
    ("functools cache", HEAD + "\nimport functools\n\n\n@functools.lru_cache\ndef f(n):\n    return n\n"),
    ("nonlocal", HEAD + "\ndef make():\n    n = 0\n\n    def f(x):\n        nonlocal n\n        n += 1\n        return x\n"
     "    return f\n"),
    ("factory closure's container", HEAD + "\ndef make():\n    cache = {}\n\n    def f(x):\n        cache[1] = x\n"
     "        return x\n    return f\n"),
    ("mutable default", HEAD + "\ndef f(x, _c=[0]):\n    _c[0] += 1\n    return x\n"),
    ("function attribute", HEAD + "\ndef f(x):\n    f.calls = getattr(f, 'calls', 0) + 1\n    return x\n"),
    ("setattr", _with("setattr(self, 'n', 1)")),
    ("globals()", _with("globals()['n'] = 1")),
    ("module-level tensor handed to a kernel", _with("k[(1,)](x, _BUF, 1, BLOCK=16)", extra="_BUF = torch.zeros(16)\n")),
    ("tensor built in __init__", _with("k[(1,)](x, self.buf, 1, BLOCK=16)", init="self.buf = torch.zeros(16)")),
    ("in place on a module-level tensor", _with("_T.add_(1)", extra="_T = torch.zeros(1)\n")),
    ("out= into a module-level tensor", _with("torch.add(x, 1, out=_T)", extra="_T = torch.zeros(1)\n")),
    ("an iterator", _with("next(_IT)", extra="import itertools\n_IT = itertools.count()\n")),
    ("random numbers", _with("import random\nif random.random() < 0.01:\n    x = x * 0")),
    ("the clock", _with("import time\nif time.time() > 0:\n    x = x + 0")),
    ("a file", _with("open('/tmp/n', 'a').write('1')")),
    ("the environment", _with("import os\nos.environ['N'] = '1'")),
    ("a thread", _with("import threading\nthreading.Thread(target=print).start()")),
    ("autotune", HEAD.replace("@triton.jit", "@triton.autotune(configs=[], key=['n'])\n@triton.jit")),
    ("torch.compile", _with("return torch.compile(lambda y: y)(x)")),
    ("native code", _with("from torch.utils.cpp_extension import load_inline")),
    ("reaches __dict__", _with("self.__dict__['n'] = 1")),
])
def test_anything_that_could_keep_state_gets_the_full_run(why: str, source: str) -> None:
    assert kept_by({"submission.py": source}), why


def test_unreadable_and_non_python_files_get_the_full_run() -> None:
    assert kept_by({"submission.py": CLEAN, "helper.py": None})
    assert kept_by({"submission.py": CLEAN, "kernel.cu": "__global__ void k() { static int n; }"})
    assert kept_by({"submission.py": "def f(:\n"})


def test_the_hostile_files_with_state_get_the_full_run() -> None:
    """The corpus's kernels whose answer depends on the call history (Defect: stateful_output) and the
    replay caches are all read as keeping state."""
    for name in ("stateful_counter", "stateful_shape_cache", "cache_content", "cache_data_ptr", "cache_instance"):
        path = KERNELS / "integrity_softmax" / f"{name}.py"
        assert kept_by({path.name: path.read_text()}), name
