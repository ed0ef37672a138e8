"""Each rewrite on the known-bad kernel file of its class: the exact edit, applied, still Python; and no edit
where the pattern is already right (the good kernels)."""

from __future__ import annotations

import ast

import pytest

from reviewer.fix.rules import RULES
from reviewer.fix.source import Program, apply, line_changes, lines_changed, unified
from tests.kernelfiles import KERNELS


def _patched(rel: str, kind: str) -> tuple[str, str]:
    text = (KERNELS / rel).read_text()
    edits = RULES[kind][0](Program.parse(text))
    new = apply(text, edits)
    ast.parse(new)
    return text, new


def _diff_lines(text: str, new: str) -> tuple[list[str], list[str]]:
    d = unified(text, new, "submission.py").splitlines()
    return ([x[1:].strip() for x in d if x.startswith("-") and not x.startswith("---")],
            [x[1:].strip() for x in d if x.startswith("+") and not x.startswith("+++")])


CASES = [
    ("memcheck/affine/oob_load_unmasked.py", "tail_mask",
     ["x = tl.load(x_ptr + offs)"], ["x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)"]),
    ("memcheck/affine/oob_store_unmasked.py", "tail_mask",
     ["tl.store(y_ptr + offs, x * 2.0 + 1.0)"], ["tl.store(y_ptr + offs, x * 2.0 + 1.0, mask=offs < n)"]),
    ("memcheck/gpumode_add/store_unmasked.py", "tail_mask",  # reuses the kernel's named mask
     ["tl.store(out_ptr + offs, a + b)"], ["tl.store(out_ptr + offs, a + b, mask=mask)"]),
    ("softmax/bad_contiguity.py", "contiguous", [], ["x = x.contiguous()"]),
    ("mean_fp16/bad_input_dtype_accumulator.py", "fp32_accumulator",
     ["acc = tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty)",
      "acc += tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0)"],
     ["acc = tl.zeros([BLOCK], dtype=tl.float32)",
      "acc += tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)"]),
    ("rownorm_fp16/bad_sumsq_zeros_like.py", "fp32_accumulator",
     ["acc = tl.zeros_like(first)", "x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)"],
     ["acc = tl.zeros(first.shape, dtype=tl.float32)",
      "x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0).to(tl.float32)"]),
    ("rowmean_loose/bad_fp16_accumulator.py", "fp32_accumulator",  # the narrowing cast of the addend too
     ["acc = tl.zeros([BLOCK], tl.float16)", "acc += x.to(tl.float16)"],
     ["acc = tl.zeros([BLOCK], tl.float32)", "acc += x.to(tl.float32)"]),
    ("softmax/bad_no_max_subtraction.py", "max_subtraction", [], ["x = x - tl.max(x, axis=0)"]),
    ("memcheck/permute/int32_overflow.py", "int64_offsets",
     ["offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)"],
     ["offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)"]),
    ("output_dtype/bad_output_dtype_hardcoded.py", "wrapper_dtype",
     ["y = torch.empty(x2.shape[0], dtype=torch.float32, device=x.device)"],
     ["y = torch.empty(x2.shape[0], dtype=x2.dtype, device=x.device)"]),
    ("bool_output/bad_store_without_cast.py", "store_cast",  # a bool output: the cast is int1 (!= 0), not int8
     ["tl.store(out_ptr + offsets, both, mask=mask)"],
     ["tl.store(out_ptr + offsets, both.to(out_ptr.dtype.element_ty), mask=mask)"]),
    ("softmax/bad_contiguity.py", "store_cast",
     ["tl.store(y_ptr + row * n_cols + offs, out, mask=mask)"],
     ["tl.store(y_ptr + row * n_cols + offs, out.to(y_ptr.dtype.element_ty), mask=mask)"]),
]


@pytest.mark.parametrize(("rel", "kind", "removed", "added"), CASES, ids=[f"{c[1]}-{c[0]}" for c in CASES])
def test_rule_makes_the_minimal_edit(rel: str, kind: str, removed: list[str], added: list[str]) -> None:
    text, new = _patched(rel, kind)
    got_removed, got_added = _diff_lines(text, new)
    assert (got_removed, got_added) == (removed, added)
    assert lines_changed(text, new) == len(removed) + len(added)


def test_max_subtraction_goes_before_the_exp_at_its_indentation() -> None:
    text, new = _patched("softmax/bad_no_max_subtraction.py", "max_subtraction")
    lines = new.splitlines()
    i = lines.index("    x = x - tl.max(x, axis=0)")
    assert lines[i + 1] == "    num = tl.exp(x)"


def test_wrapper_dtype_uses_the_input_dtype() -> None:
    src = ("import torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x_ptr, y_ptr):\n"
           "    pass\n\ndef run(x):\n    y = torch.empty(x.shape, dtype=torch.float32, device=x.device)\n"
           "    k[(1,)](x, y)\n    return y\n")
    new = apply(src, RULES["wrapper_dtype"][0](Program.parse(src)))
    assert "y = torch.empty(x.shape, dtype=x.dtype, device=x.device)" in new


GOOD = ["softmax/good_softmax.py", "output_dtype/good_output_like_input.py", "memcheck/affine/good_masked.py",
        "mean_fp16/good_fp32_accumulator.py", "memcheck/permute/good_permute_int64.py", "rowmean_loose/good_rowmean.py",
        "bool_output/good_store_cast_to_bool.py"]


@pytest.mark.parametrize("rel", GOOD)
@pytest.mark.parametrize("kind", ["tail_mask", "contiguous", "fp32_accumulator", "max_subtraction", "store_cast",
                                  "wrapper_dtype"])
def test_no_edit_where_the_pattern_is_already_right(rel: str, kind: str) -> None:
    assert RULES[kind][0](Program.parse((KERNELS / rel).read_text())) == []


def test_line_changes_anchor_an_insertion_on_the_line_above() -> None:
    text, new = _patched("softmax/bad_contiguity.py", "contiguous")
    (change,) = line_changes(text, new)
    assert change.old == ["    def forward(self, x):"]
    assert change.new == ["    def forward(self, x):", "        x = x.contiguous()"]
    assert change.start_line == change.end_line == text.splitlines().index("    def forward(self, x):") + 1


def test_overlapping_edits_are_refused() -> None:
    from reviewer.core.fixes import TextEdit

    e = TextEdit(start_line=1, start_col=0, end_line=1, end_col=3, text="x")
    with pytest.raises(ValueError):
        apply("abcdef\n", [e, e.model_copy(update={"start_col": 1, "end_col": 4})])


def test_a_file_that_does_not_parse_gives_no_program() -> None:
    assert Program.parse("def (:\n") is None
