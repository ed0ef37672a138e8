"""The static low-precision accumulator finding fires on every spelling of "the input's dtype" and not on
an accumulator that is float32 however it is spelled."""

from __future__ import annotations

import pytest

from tools.numerics.accumulators import low_precision_accumulators

_LOOP = '''
    for s in range(0, n, BLOCK):
        acc += tl.load(x_ptr + s + tl.arange(0, BLOCK))
'''

_KERNEL = '''
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr, ACC: tl.constexpr = tl.float32):
{body}''' + _LOOP

FLAGGED = {
    "element_ty": "    acc = tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty)\n",
    "value_dtype": "    x = tl.load(x_ptr + tl.arange(0, BLOCK))\n    acc = tl.zeros([BLOCK], dtype=x.dtype)\n",
    "zeros_like": "    x = tl.load(x_ptr + tl.arange(0, BLOCK))\n    acc = tl.zeros_like(x)\n",
    "literal_fp16": "    acc = tl.zeros([BLOCK], dtype=tl.float16)\n",
    "constexpr_arg": "    acc = tl.zeros([BLOCK], dtype=ACC)\n",
}
CLEAN = {
    "fp32": "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n",
    "zeros_like_cast": "    x = tl.load(x_ptr + tl.arange(0, BLOCK)).to(tl.float32)\n    acc = tl.zeros_like(x)\n",
}
_HOST_FOLLOWS = "\ndef host(x):\n    k[(1,)](x, 4, BLOCK=4, ACC=tl.float16 if x.dtype == torch.float16 else tl.float32)\n"
_HOST_FP32 = "\ndef host(x):\n    k[(1,)](x, 4, BLOCK=4, ACC=tl.float32)\n"


@pytest.mark.parametrize("spelling", sorted(FLAGGED))
def test_every_spelling_of_the_input_dtype_is_flagged(spelling: str) -> None:
    src = _KERNEL.format(body=FLAGGED[spelling]) + (_HOST_FOLLOWS if spelling == "constexpr_arg" else "")
    (acc,) = low_precision_accumulators(src)
    assert acc.name == "acc" and acc.line > 0 and acc.loop_line > acc.line


@pytest.mark.parametrize("spelling", sorted(CLEAN))
def test_float32_accumulators_are_not(spelling: str) -> None:
    assert low_precision_accumulators(_KERNEL.format(body=CLEAN[spelling])) == []


def test_a_constexpr_dtype_every_launch_sets_to_float32_is_not() -> None:
    assert low_precision_accumulators(_KERNEL.format(body=FLAGGED["constexpr_arg"]) + _HOST_FP32) == []
