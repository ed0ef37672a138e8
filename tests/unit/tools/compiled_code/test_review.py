"""The compiled-code readers on small hand-written TTGIR/PTX: the address-stride analysis, the
unvectorised-access and tf32 concerns (which no kernel file in tests/kernels shows), and the PTX/SASS
instruction parsers."""

from __future__ import annotations

from tools.compiled_code.ptx import parse_ptx, sass_summary
from tools.compiled_code.review import review_compiled
from tools.compiled_code.ttgir import Ttgir

HEAD = ('#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n'
        '#loc = loc("src/submission.py":10:1)\n'
        'module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", '
        '"ttg.threads-per-warp" = 32 : i32} {\n'
        '  tt.func public @k(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc)), '
        '%n: i32 loc("n"(#loc))) attributes {noinline = false} {\n'
        '    %offs = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked> loc(#loc2)\n')
TAIL = ('    tt.return loc(#loc)\n  } loc(#loc)\n} loc(#loc)\n'
        '#loc2 = loc("src/submission.py":11:20)\n#loc3 = loc("src/submission.py":12:24)\n'
        '#loc4 = loc("src/submission.py":12:8)\n')
CONTIGUOUS = ('    %p = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc3)\n'
              '    %q = tt.addptr %p, %offs : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked> '
              'loc(#loc3)\n'
              '    %v = tt.load %q : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc4)\n')
STRIDED = ('    %s = tt.splat %n : i32 -> tensor<1024xi32, #blocked> loc(#loc3)\n'
           '    %m = arith.muli %offs, %s : tensor<1024xi32, #blocked> loc(#loc3)\n'
           '    %p = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc3)\n'
           '    %q = tt.addptr %p, %m : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked> loc(#loc3)\n'
           '    %v = tt.load %q : tensor<1024x!tt.ptr<f32>, #blocked> loc(#loc4)\n')
SCALAR_PTX = '.loc 1 12 8\n@%p1 ld.global.b32 { %r1 }, [ %rd1 + 0 ];\n.file 1 "src/submission.py"\n'
VECTOR_PTX = '.loc 1 12 8\n@%p1 ld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];\n.file 1 "src/submission.py"\n'


def _user(path: str) -> bool:
    return path.endswith("submission.py")


def test_strides_and_locations() -> None:
    ir = Ttgir(HEAD + STRIDED + TAIL)
    assert ir.index_strides("%m") == (["var"], None)
    assert ir.index_strides("%q")[0] == ["var"]
    assert ir.index_strides("%offs")[0] == [1]
    load = next(op for op in ir.ops if op.name == "tt.load")
    assert ir.user_frame(load.loc, _user).line == 12


def test_unvectorised_contiguous_load_is_a_concern_and_vector_load_is_not() -> None:
    r = review_compiled("k", "sm_90", HEAD + CONTIGUOUS + TAIL, SCALAR_PTX, is_user_file=_user,
                        divisible_by_16=["x_ptr"], int_args=["n"])
    assert [o.code for o in r.concerns] == ["unvectorised_access"]
    assert "n" in r.concerns[0].message and r.concerns[0].source_line == 12
    assert {q.ir for q in r.concerns[0].quotes} == {"ttgir", "ptx"}
    good = review_compiled("k", "sm_90", HEAD + CONTIGUOUS + TAIL, VECTOR_PTX, is_user_file=_user)
    assert good.concerns == [] and good.global_accesses[0]["ptx_widths_bytes"] == [16]


def test_strided_load_is_a_concern() -> None:
    r = review_compiled("k", "sm_80", HEAD + STRIDED + TAIL, SCALAR_PTX, is_user_file=_user)
    assert [o.code for o in r.concerns] == ["strided_access"]
    assert any("arith.muli" in q.text for q in r.concerns[0].quotes)


TF32 = ('#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>\n'
        '#loc = loc("src/submission.py":5:1)\n'
        'module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {\n'
        '    %a = arith.constant dense<1.0> : tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>> '
        'loc(#loc)\n'
        '    %b = arith.constant dense<1.0> : tensor<32x64xf32, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 1}>> '
        'loc(#loc)\n'
        '    %c = arith.constant dense<0.0> : tensor<64x64xf32, #mma> loc(#loc)\n'
        '    %d = tt.dot %a, %b, %c, inputPrecision = tf32 : tensor<64x32xf32, #ttg.dot_op<{opIdx = 0, parent = #mma, '
        'kWidth = 1}>> * tensor<32x64xf32, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 1}>> -> '
        'tensor<64x64xf32, #mma> loc(#loc7)\n'
        '}\n#loc7 = loc("src/submission.py":9:15)\n')
TF32_PTX = ('.loc 1 9 15\nmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 { %r1, %r2, %r3, %r4 }, { %r5, %r6, %r7, '
            '%r8 }, { %r9, %r10 }, { %r1, %r2, %r3, %r4 };\n.file 1 "src/submission.py"\n')


def test_tf32_on_fp32_data_is_a_concern() -> None:
    r = review_compiled("k", "sm_80", TF32, TF32_PTX, is_user_file=_user)
    assert [o.code for o in r.concerns] == ["tf32_inputs"] and r.concerns[0].source_line == 9
    assert r.tensor_core == [{"instruction": "mma", "shape": "m16n8k8", "operand_type": "tf32",
                              "accumulator": "f32", "count": 1}]


def test_ptx_and_sass_parsers() -> None:
    mmas, acc = parse_ptx("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%r1}, %rd1, %rd2, 0, 1, 1;\n"
                          "cp.async.cg.shared.global [ %r29 + 0 ], [ %rd7 + 0 ], 0x10, %r30;\n"
                          "st.global.v2.b16 [ %rd1 + 0 ], { %rs1, %rs2 };\n")
    assert (mmas[0].a_type, mmas[0].shape) == ("e4m3", "m64n64k32")
    assert [(a.kind, a.width_bytes) for a in acc] == [("async_copy", 16), ("store", 4)]
    s = sass_summary("        /*0090*/                   HMMA.16816.F32.BF16 R4, R8, R12, R4 ;\n"
                     "        /*00a0*/                   LDG.E.128 R8, desc[UR4][R2.64] ;\n"
                     "        /*00b0*/                   STG.E desc[UR4][R6.64], R0 ;\n")
    assert s == {"tensor_core": {"HMMA.16816.F32.BF16": 1}, "global_access": {"LDG 16 B": 1, "STG 4 B": 1}}
