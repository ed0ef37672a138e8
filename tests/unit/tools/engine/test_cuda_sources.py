"""Static extraction of CUDA C from submissions (tools/engine/cuda_sources.py) and the device-only unit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.engine.cuda_sources import (
    IMPLICIT_CUDA_HEADERS,
    evaluate_int,
    extract_from_python,
    find_cuda_sources,
    kernel_names,
    launch_bounds,
    launch_sites,
    translation_unit,
)
from tools.engine.compilers import toolchain
from tools.resources.cuda_static import compile_source, demangle
from tools.resources.cuda_unit import device_only_unit

KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n"


def test_literal_name_and_keywords() -> None:
    text = f'''
from torch.utils.cpp_extension import load_inline
src = """{KERNEL}"""
ext = load_inline(name="ext", cpp_sources="void f();", cuda_sources=src, functions=["f"],
                  extra_cuda_cflags=["-O3", "--use_fast_math"])
'''
    (s,) = extract_from_python(text, "submission.py")
    assert s.origin == "load_inline" and s.text == KERNEL and s.name == "ext" and s.functions == ("f",)
    assert s.extra_cuda_cflags == ("-O3", "--use_fast_math") and s.cpp_text == "void f();"
    assert s.line == 3 and s.unresolved is None
    assert translation_unit(s).startswith("\n".join(IMPLICIT_CUDA_HEADERS))


def test_concatenation_fstring_list_dedent_and_function_scope() -> None:
    text = f'''
import textwrap
import torch.utils.cpp_extension as ce
HEAD = "#define N 4\\n"
def build():
    body = textwrap.dedent("""
        {KERNEL}""")
    block = 256
    parts = [HEAD + f"#define B {{block}}\\n", body.strip()]
    return ce.load_inline("ext2", "", cuda_sources=parts)
'''
    (s,) = extract_from_python(text, "m.py")
    assert s.text is not None and s.text.startswith("#define N 4\n#define B 256\n") and "__global__" in s.text


def test_runtime_source_is_reported_unresolved() -> None:
    text = "from torch.utils.cpp_extension import load_inline\nimport os\n" \
           "ext = load_inline('e', '', cuda_sources=os.environ['SRC'])\n"
    (s,) = extract_from_python(text, "m.py")
    assert s.text is None and "run time" in (s.unresolved or "")


def test_load_with_cu_files_and_standalone_files(tmp_path: Path) -> None:
    (tmp_path / "kern.cu").write_text(KERNEL)
    (tmp_path / "other.cu").write_text(KERNEL.replace("k(", "k2("))
    (tmp_path / "sub.py").write_text("from torch.utils.cpp_extension import load\n"
                                     "ext = load(name='e', sources=['bind.cpp', 'kern.cu'])\n"
                                     "code = open('kern.cu').read()\n")
    found = find_cuda_sources(tmp_path)
    assert [(s.origin, s.file) for s in found] == [("load", "kern.cu"), ("file", "other.cu")]
    assert found[0].text == KERNEL and not found[0].implicit_headers


def test_file_read_outside_the_submission_is_refused(tmp_path: Path) -> None:
    text = "from torch.utils.cpp_extension import load_inline\n" \
           "ext = load_inline('e', '', cuda_sources=open('/etc/hostname').read())\n"
    (s,) = extract_from_python(text, "m.py", tmp_path)
    assert s.text is None and "inside the submission" in (s.unresolved or "")


def test_kernel_names_launch_sites_and_bounds() -> None:
    cu = """
#define THREADS 128
template <typename T, int B> __global__ void __launch_bounds__(512) scale(T* x) {}
__global__ void plain(float* x, int n) { /* k<<<1, 2>>> in a comment */ }
void host(float* x, int n) {
    dim3 blk(16, 16);
    const int smem = 2 * THREADS * sizeof(float);
    scale<float, 4><<<n / THREADS, THREADS, smem>>>(x);
    plain<<<(n + 255) / 256, blk>>>(x, n);
}
"""
    assert kernel_names(cu) == ["scale", "plain"]
    assert launch_bounds(cu) == {"scale": 512}
    a, b = launch_sites(cu)
    assert (a.kernel, a.template_args, a.block_threads, a.dynamic_smem) == ("scale", "float, 4", 128, 1024)
    assert (b.kernel, b.block_threads, b.dynamic_smem) == ("plain", 256, 0)
    assert evaluate_int("n * 2", {}) is None and evaluate_int("(3 + 1) * 8u", {}) == 32


def test_demangle() -> None:
    assert demangle("_Z12softmax_rowsPKfPfi") == "softmax_rows"
    assert demangle("_ZN2ns6kernelEPf") == "kernel" and demangle("plain") == "plain"


def test_device_only_unit_drops_host_code_and_keeps_line_numbers() -> None:
    cu = "#include <torch/extension.h>\n" + KERNEL + \
         "torch::Tensor f(torch::Tensor x) { k<<<1, 32>>>(x.data_ptr<float>()); return x; }\n"
    unit, note = device_only_unit(cu)
    assert unit is not None and "torch" not in unit.split("#line 1", 1)[1]
    body = unit.split("#line 1\n", 1)[1]
    assert body.splitlines()[1] == KERNEL.strip()  # still on line 2
    torchy = "#include <torch/extension.h>\n__global__ void g(at::Half* x) {}\n"
    assert device_only_unit(torchy)[0] is None
    templ = "template <typename T> __global__ void t(T* x) {}\nvoid h(float* p) { t<float><<<1, 1>>>(p); }\n"
    unit, note = device_only_unit(templ)
    assert unit is not None and "(void*)&t<float>" in unit and "instantiated" in note
    assert device_only_unit("template <typename T> __global__ void t(T* x) {}\n")[0] is None


@pytest.mark.skipif(toolchain.find("nvcc") is None, reason="nvcc is not installed")
def test_compile_template_kernel_fast_path(tmp_path: Path) -> None:
    from tools.engine.cuda_sources import CudaSource

    text = ("template <typename T> __global__ void scale(T* x, T s) { x[threadIdx.x] *= s; }\n"
            "torch::Tensor f(torch::Tensor x) { scale<float><<<1, 64>>>(x.data_ptr<float>(), 2.f); return x; }\n")
    src = CudaSource(origin="load_inline", file="s.py", line=1, text=text, name="e")
    r = compile_source(src, "sm_90", tmp_path, Path("."), timeout=120, full_timeout=300)
    assert r.ok and r.mode == "device-only", r.error
    (k,) = r.report.kernels
    assert demangle(k.name) == "scale" and k.registers and k.registers > 0
    assert any(a.endswith(".sass") for a in r.artifacts) or toolchain.find("cuobjdump") is None
