"""Static NKI checks: each finding on a kernel that has the defect (false negatives), none on kernels
that do not (false positives), kept apart."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from tools.nki.static import check_source

HEADER = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n"


def codes(body: str) -> list[str]:
    return [f.code for f in check_source(HEADER + body)]


# -- false negatives: each defect is found --------------------------------------------------------------
def test_affine_loop_reading_what_the_previous_iteration_wrote() -> None:
    body = '''
@nki.jit
def k(a):
    out = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 1), nl.float32)
    for i in nl.affine_range(a.shape[1] // 512):
        t = nl.load(a[:, i * 512:(i + 1) * 512])
        acc[...] = nl.add(acc, nl.sum(t, axis=[1]))
    nl.store(out, value=acc)
    return out
'''
    [f] = [f for f in check_source(HEADER + body) if f.code == "affine_carried_dependency"]
    assert f.severity == "warning" and f.line == 11 and "`acc`" in f.message


def test_affine_loop_writing_the_same_elements_every_iteration() -> None:
    body = '''
@nki.jit
def k(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        nl.store(out[0:128, 0:512], value=nl.load(a[i * 128:(i + 1) * 128, 0:512]))
    return out
'''
    assert "affine_carried_dependency" in codes(body)


def test_trip_count_dropping_the_tail() -> None:
    body = '''
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.load(a[i * 128:(i + 1) * 128, :]))
    return out
'''
    assert codes(body) == ["tail_not_handled"]


def test_hard_coded_shapes() -> None:
    body = '''
@nki.jit
def k(a):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(a))
    return out
'''
    found = check_source(HEADER + body)
    assert [f.code for f in found] == ["hard_coded_shape", "hard_coded_shape"]
    assert {f.criterion for f in found} == {"generality"}


def test_partition_sizes_over_the_limit_and_wasting_lanes() -> None:
    body = '''
@nki.jit
def k(a):
    big = nl.ndarray((256, 8), dtype=nl.float32, buffer=nl.sbuf)
    odd = nl.ndarray((100, 8), dtype=nl.float32, buffer=nl.sbuf)
    i_p = nl.arange(200)[:, None]
    return a.shape
'''
    assert codes(body) == ["partition_limit", "partition_underuse", "partition_limit"]


def test_control_flow_on_a_tensor_value() -> None:
    body = '''
@nki.jit
def k(a):
    flag = nl.load(a[0:1, 0:1])
    if flag:
        pass
    return a.shape
'''
    assert codes(body) == ["control_flow_on_tensor"]


def test_sequential_loops_without_dependencies() -> None:
    body = '''
@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    assert a.shape[0] % 128 == 0
    for i in nl.sequential_range(a.shape[0] // 128):
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.load(a[i * 128:(i + 1) * 128, :]))
    for j in range(2):
        nl.store(out[j * 128:(j + 1) * 128, :], value=nl.load(a[j * 128:(j + 1) * 128, :]))
    return out
'''
    found = check_source(HEADER + body)
    assert [f.code for f in found] == ["sequential_could_be_affine"] * 2
    assert "Python range" in found[1].message and {f.criterion for f in found} == {"performance"}


# -- false positives: correct kernels get no warning ------------------------------------------------------
CORRECT = [p for p in (ROOT / "tests" / "kernels" / "nki").glob("*/good_*.py")] + [
    EXAMPLES / "nki_tensor_add" / "submission.py", EXAMPLES / "nki_matmul" / "submission.py",
    EXAMPLES / "nki_rmsnorm" / "submission.py"]


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_correct_kernels_have_no_warning(path: Path) -> None:
    found = check_source(path.read_text())
    assert [f for f in found if f.severity != "info"] == []


def test_sequential_loop_with_a_real_dependency_is_not_called_parallel() -> None:
    body = '''
@nki.jit
def k(a):
    out = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 1), nl.float32)
    for i in nl.sequential_range(a.shape[1] // 512):
        acc[...] = nl.add(acc, nl.sum(nl.load(a[:, i * 512:(i + 1) * 512]), axis=[1]))
    nl.store(out, value=acc)
    return out
'''
    assert "sequential_could_be_affine" not in codes(body)


def test_accumulation_and_per_iteration_read_modify_write_are_not_dependencies() -> None:
    body = '''
@nki.jit
def k(a_t, b):
    out = nl.ndarray((a_t.shape[1], b.shape[1]), dtype=a_t.dtype, buffer=nl.shared_hbm)
    assert a_t.shape[0] % 128 == 0
    acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
    buf = nl.ndarray((128, 4, 512), dtype=nl.float32, buffer=nl.sbuf)
    for k in nl.affine_range(a_t.shape[0] // 128):
        acc += nl.matmul(nl.load(a_t[k * 128:(k + 1) * 128, :]), nl.load(b[k * 128:(k + 1) * 128, :]),
                         transpose_x=True)
    for i in nl.affine_range(4):
        buf[:, i, :] = nl.exp(buf[:, i, :])
    nl.store(out, value=nl.copy(acc, dtype=out.dtype))
    return out
'''
    assert codes(body) == []


def test_command_line_prints_json() -> None:
    done = subprocess.run([sys.executable, "-m", "tools.nki.static",
                           str(ROOT / "tests/kernels/nki/add/tail_dropped.py")], capture_output=True, text=True,
                          cwd=ROOT, check=True)
    assert '"code": "tail_not_handled"' in done.stdout and "RuntimeWarning" not in done.stderr
