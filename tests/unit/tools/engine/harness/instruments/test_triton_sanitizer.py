"""The ``triton_sanitizer`` instrument, in-process on our own kernels (tests/kernels/memcheck/
unit_kernels.py) under TRITON_INTERPRET=1: what it reports, what it must not report, and that it
refuses to patch a Triton whose internals moved."""

from __future__ import annotations

import importlib.util
import inspect
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
import torch

from reviewer.core.errors import SanitizerIncompatible
from tests.kernelfiles import KERNELS
from tools.engine.harness.instruments import get

KFILE = KERNELS / "memcheck" / "unit_kernels.py"
LINES = {line.split("# at: ")[1].strip(): i for i, line in enumerate(KFILE.read_text().splitlines(), 1)
         if "# at: " in line}


@pytest.fixture(scope="module", autouse=True)
def k() -> Iterator[Any]:
    """The unit kernels, decorated in interpreter mode.

    Triton decides interpreter or compiled mode when a function is decorated, including its own
    ``tl.zeros``/``tl.full`` helpers at import, and checks TRITON_INTERPRET again when it lazily
    imports its Gluon frontend. Another test may already have imported Triton without it, so this
    module runs against a fresh import of Triton's Python modules (put back afterwards)."""
    saved = {name: mod for name, mod in sys.modules.items() if _python_triton(name)}
    for name in saved:
        del sys.modules[name]
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("TRITON_INTERPRET", "1")
            spec = importlib.util.spec_from_file_location("kreview_unit_kernels", KFILE)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            yield mod
    finally:
        for name in [n for n in sys.modules if _python_triton(n)]:
            del sys.modules[name]
        sys.modules.update(saved)


def _python_triton(name: str) -> bool:
    # the compiled extension (triton._C.*) cannot be initialised twice; it holds no mode
    return (name == "triton" or name.startswith("triton.")) and not name.startswith("triton._C")


def sanitized(launch) -> dict[str, Any]:
    with get("triton_sanitizer")({}) as data:
        launch()
    return data


def only(data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [v for v in data["violations"] if v["kind"] == kind]


# -- false negatives: each defect is reported, at the right place ---------------------------------
def test_unmasked_tail_load_and_store(k: Any) -> None:
    x, y = torch.randn(300), torch.empty(300)
    data = sanitized(lambda: k.tail[(3,)](x, y, 300, BLOCK=128))
    (ld,), (st,) = only(data, "oob_load"), only(data, "oob_store")
    assert (ld["arg"], ld["direction"], ld["masked"], ld["element_min"], ld["element_max"]) == \
        ("x_ptr", "past_end", False, 300, 383)
    assert ld["line"] == LINES["tail-load"] and ld["file"] == str(KFILE) and ld["kernel"] == "tail"
    assert ld["examples"][0] == {"program": [2, 0, 0], "lane": 44, "element": 300, "offset_bytes": 1200}
    assert (st["arg"], st["lanes"], st["programs"], st["program_ids"]) == ("y_ptr", 84, 1, [[2, 0, 0]])
    assert st["line"] == LINES["tail-store"] and st["valid_elements"] == [0, 300]
    assert data["launches"] == 1 and data["programs"] == 3 and data["lanes_checked"] == 2 * 384


def test_off_by_one_mask_reports_one_masked_lane(k: Any) -> None:
    x, y = torch.randn(300), torch.empty(300)
    data = sanitized(lambda: k.off_by_one[(3,)](x, y, 300, BLOCK=128))
    got = {(v["kind"], v["line"], v["masked"], v["lanes"], v["element_min"]) for v in data["violations"]}
    assert got == {("oob_load", LINES["obo-load"], True, 1, 300), ("oob_store", LINES["obo-store"], True, 1, 300)}


def test_negative_offsets_are_before_the_start(k: Any) -> None:
    x, y = torch.randn(256), torch.empty(256)
    data = sanitized(lambda: k.shifted[(2,)](x, y, 256, BLOCK=128))
    ld, st = only(data, "oob_load")[0], only(data, "oob_store")[0]
    assert (ld["direction"], ld["element_min"], ld["element_max"], ld["lanes"]) == ("before_start", -2, -1, 2)
    assert (st["direction"], st["element_min"], st["lanes"], st["line"]) == ("before_start", -1, 1, LINES["neg-store"])


def test_overrun_into_another_argument_is_caught_by_provenance(k: Any) -> None:
    x, y, out = torch.randn(64), torch.randn(64), torch.empty(64)
    delta = (y.data_ptr() - x.data_ptr()) // 4  # x_ptr + delta is y's first element
    data = sanitized(lambda: k.cross[(1,)](x, out, delta, 64, BLOCK=64))
    data_y = sanitized(lambda: k.cross[(1,)](x, y, delta, 64, BLOCK=64))
    (v,) = only(data, "oob_load")
    assert v["arg"] == "x_ptr" and v["attribution"] == "provenance" and v["lanes"] == 64
    assert only(data_y, "oob_load"), "the access lands in y's storage, which is an argument too"


def test_far_accesses_are_stopped_before_they_happen(k: Any) -> None:
    # Unsanitized, these touch memory 200 MB away (segfault or silent corruption).
    x, y = torch.randn(16), torch.zeros(16)
    data = sanitized(lambda: k.far_store[(1,)](y, 16, BLOCK=16))
    assert only(data, "oob_store")[0]["element_min"] == 50_000_000
    data = sanitized(lambda: k.far_load[(1,)](x, y, 16, BLOCK=16))
    assert only(data, "oob_load")[0]["line"] == LINES["far-load"]
    assert torch.equal(y, torch.zeros(16)), "an out-of-bounds load yields zeros (other), not garbage"


def test_device_assert_is_honoured_with_message_program_and_mask(k: Any) -> None:
    from triton.language.semantic import TritonSemantic

    if "mask" not in inspect.signature(TritonSemantic.device_assert).parameters:
        pytest.skip(f"tl.device_assert of triton {k.triton.__version__} has no mask (added in 3.5)")
    x = torch.arange(200, dtype=torch.float32) / 100.0  # 2.0 and above from element 200 on: none
    assert only(sanitized(lambda: k.asserting[(2,)](x, 200, BLOCK=128)), "device_assert") == []
    x[150] = 5.0
    (v,) = only(sanitized(lambda: k.asserting[(2,)](x, 200, BLOCK=128)), "device_assert")
    assert (v["message"], v["lanes"], v["program_ids"], v["line"]) == \
        ("x must stay below 2", 1, [[1, 0, 0]], LINES["assert"])
    assert v["examples"][0]["lane"] == 150 - 128


def test_device_assert_without_mask_is_honoured(k: Any) -> None:
    x = torch.arange(200, dtype=torch.float32) / 100.0
    assert only(sanitized(lambda: k.asserting_unmasked[(2,)](x, 200, BLOCK=128)), "device_assert") == []
    x[150] = 5.0
    (v,) = only(sanitized(lambda: k.asserting_unmasked[(2,)](x, 200, BLOCK=128)), "device_assert")
    assert (v["message"], v["lanes"], v["program_ids"], v["line"]) == \
        ("x must stay below 2", 1, [[1, 0, 0]], LINES["assert-nomask"])


def test_a_loop_with_a_runtime_bound_runs_on_every_tested_triton(k: Any) -> None:
    """Triton 3.4-3.6 interpreters cannot index with a scalar under NumPy 2.4 (their own bug, fixed
    in 3.7): the sanitized call carries the fix (tools/engine/harness/interpreter_fixes.py)."""
    x, y = torch.randn(300), torch.zeros(300)
    data = sanitized(lambda: k.loop_runtime_bound[(1,)](x, y, 300, BLOCK=128))
    assert data["violations"] == [] and data["interpreter_errors"] == [] and torch.equal(x, y)


def test_int32_index_wrap_is_traced_to_its_origin(k: Any) -> None:
    x, y = torch.randn(4096), torch.empty(4096)
    data = sanitized(lambda: k.wrap_index[(16,)](x, y, 4096, 1_000_003, BLOCK=256))
    (v,) = only(data, "int32_overflow")
    assert v["line"] == LINES["wrap-use"] and v["origin"]["line"] == LINES["wrap-origin"]
    assert (v["origin"]["op"], v["origin"]["lhs"], v["origin"]["exact"]) == ("mul", 2148, 2148 * 1_000_003)
    assert v["origin"]["wrapped"] == 2148 * 1_000_003 - 2**32 and v["lanes"] == 4096 - 2148


def test_int32_wrap_landing_in_bounds_is_still_reported(k: Any) -> None:
    # pid * 2**30 wraps to 0 at pid 4: an in-bounds, silently wrong row; small memory throughout.
    x, y = torch.randn(8), torch.empty(5 * 8)
    data = sanitized(lambda: k.row_wrap[(5,)](x, y, 2**30, 8, BLOCK=8))
    (v,) = only(data, "int32_overflow")
    assert [4, 0, 0] in v["program_ids"] and v["origin"]["line"] == LINES["row-wrap-origin"]
    oob_programs = {tuple(p) for r in only(data, "oob_load") for p in r["program_ids"]}
    assert (4, 0, 0) not in oob_programs and (1, 0, 0) in oob_programs


# -- false positives: correct kernels get no report ----------------------------------------------
@pytest.mark.parametrize("n", [1, 127, 128, 300])
def test_masked_kernel_is_clean(k: Any, n: int) -> None:
    x, y = torch.randn(n), torch.empty(n)
    data = sanitized(lambda: k.masked[(triton_cdiv(n, 128),)](x, y, n, BLOCK=128))
    assert data["violations"] == [] and data["internal_errors"] == []
    assert data["lanes_checked"] == 2 * n and torch.equal(y, x + 1.0)


def test_wide_index_and_wraps_that_never_reach_memory_are_clean(k: Any) -> None:
    x, y = torch.randn(4096), torch.empty(4096)
    assert sanitized(lambda: k.wide_index[(16,)](x, y, 4096, 1_000_003, BLOCK=256))["violations"] == []
    x, y = torch.randn(100), torch.empty(100)
    assert sanitized(lambda: k.wrap_masked_lanes[(1,)](x, y, 100, 2**24, BLOCK=256))["violations"] == []
    h = torch.empty(64, dtype=torch.int32)
    assert sanitized(lambda: k.hash_values[(1,)](h, 64, BLOCK=64))["violations"] == []


def test_pointer_select_and_masked_2d_are_clean(k: Any) -> None:
    x, y = torch.randn(50), torch.empty(50)
    assert sanitized(lambda: k.select_ptr[(1,)](x, y, 50, BLOCK=64))["violations"] == []
    x2, y2 = torch.randn(6, 64), torch.empty(6, 64)
    assert sanitized(lambda: k.grid_2d[(2,)](x2, y2, 6, 64, 64, BR=4, BC=64))["violations"] == []


def test_uninstall_restores_the_interpreter(k: Any) -> None:
    from triton.runtime import interpreter

    before = dict(interpreter.InterpreterBuilder.__dict__)
    with pytest.raises(RuntimeError), get("triton_sanitizer")({}):
        raise RuntimeError("the submission raised")
    assert dict(interpreter.InterpreterBuilder.__dict__) == before
    assert interpreter.interpreter_builder.options.debug is False


# -- shapes of pointer tensors the hooks must follow ----------------------------------------------
def test_2d_pointers_follow_provenance_through_broadcast(k: Any) -> None:
    x, y = torch.randn(6, 50), torch.empty(6, 50)
    data = sanitized(lambda: k.grid_2d[(2,)](x, y, 6, 50, 50, BR=4, BC=64))
    (v,) = only(data, "oob_load")
    assert v["attribution"] == "provenance" and v["line"] == LINES["2d-load"] and v["element_max"] == 5 * 50 + 63


def test_block_pointer_without_boundary_check(k: Any) -> None:
    x, y = torch.randn(5, 32), torch.empty(5, 32)
    data = sanitized(lambda: k.block_ptr_unchecked[(2,)](x, y, 5, 32, BM=4, BN=32))
    assert [v["line"] for v in data["violations"]] == [LINES["bptr-load"]]
    # provenance from the block pointer's base (up to Triton 3.7 a handle of its own), not a guess
    (v,) = data["violations"]
    assert (v["arg"], v["attribution"], v["direction"]) == ("x_ptr", "provenance", "past_end")


def test_atomics_are_checked(k: Any) -> None:
    y = torch.zeros(10)
    (v,) = sanitized(lambda: k.atomic_tail[(1,)](y, 10, BLOCK=16))["violations"]
    assert (v["kind"], v["lanes"], v["line"]) == ("oob_atomic", 6, LINES["atomic-add"])
    assert torch.equal(y, torch.ones(10))
    c = torch.zeros(10, dtype=torch.int32)
    (v,) = sanitized(lambda: k.cas_tail[(1,)](c, 10, BLOCK=16))["violations"]
    assert (v["kind"], v["line"]) == ("oob_atomic", LINES["cas"]) and torch.equal(c, torch.full((10,), 7, dtype=torch.int32))


def test_location_is_the_jit_helper_line(k: Any) -> None:
    x, y = torch.randn(10), torch.empty(10)
    (v,) = sanitized(lambda: k.via_helper[(1,)](x, y, 10, BLOCK=16))["violations"]
    assert (v["line"], v["function"], v["kernel"]) == (LINES["helper-load"], "_load_row", "via_helper")


def test_interpreter_errors_are_recorded(k: Any) -> None:
    x, y = torch.randn(10), torch.empty(10)
    from triton.runtime.errors import InterpreterError

    with get("triton_sanitizer")({}) as data, pytest.raises(InterpreterError):
        k.unsupported[(1,)](x, y, 10, BLOCK=16)
    (err,) = data["interpreter_errors"]
    assert err["kernel"] == "unsupported" and err["type"] == "NotImplementedError"


# -- compatibility check ---------------------------------------------------------------------------
def test_installed_triton_is_compatible() -> None:
    import triton

    from tools.engine.harness.sanitizer.compat import tested, problems

    assert tested(triton.__version__) and problems() == []


def test_moved_internal_fails_loudly_before_patching(monkeypatch: pytest.MonkeyPatch) -> None:
    from triton.runtime import interpreter

    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_masked_store",
                        lambda self, ptrs, value, mask: None)
    before = dict(interpreter.InterpreterBuilder.__dict__)
    with pytest.raises(SanitizerIncompatible) as info, get("triton_sanitizer")({}):
        pass
    assert info.value.status == "sanitizer_incompatible"
    import triton

    short = ".".join(triton.__version__.split(".")[:2])
    assert str(info.value).startswith(f"sanitizer incompatible with triton {short}")
    assert "create_masked_store" in info.value.message
    assert dict(interpreter.InterpreterBuilder.__dict__) == before


def test_version_and_behaviour_drift_are_named() -> None:
    from tools.engine.harness.sanitizer.compat import problems

    assert any("found 3.9.0" in p for p in problems(version="3.9.0"))
    assert any("found 3.3.1" in p for p in problems(version="3.3.1"))
    assert any("found 3.10.0" in p for p in problems(version="3.10.0"))

    class Semantic:
        def device_assert(self, cond, msg, mask):
            return None

    assert any("options.debug" in p for p in problems(semantic_cls=Semantic))
    assert "triton.runtime.interpreter.GridExecutor is gone" in problems(interp=types.SimpleNamespace())


@pytest.mark.parametrize("version", ["3.4.0", "3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.8.0+git1234abcd"])
def test_every_minor_release_from_3_4_to_3_8_is_accepted(version: str) -> None:
    from tools.engine.harness.sanitizer.compat import tested

    assert tested(version)


def triton_cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def test_tensor_descriptor_bounds_are_checked(k: Any) -> None:
    x, y = torch.randn(6, 32), torch.empty(6, 32)
    assert sanitized(lambda: k.descriptor_rows[(2,)](x, y, 6, 32, BM=4, BN=32))["violations"] == []
    data = sanitized(lambda: k.descriptor_rows[(2,)](x, y, 8, 32, BM=4, BN=32))
    kinds = {(v["kind"], v["line"]) for v in data["violations"]}
    assert ("oob_load", LINES["desc-load"]) in kinds and {kd for kd, _ in kinds} == {"oob_load", "oob_store"}


def test_replaced_hooks_are_reported(k: Any) -> None:
    from triton.runtime import interpreter

    original = interpreter.InterpreterBuilder.create_masked_store
    with get("triton_sanitizer")({}) as data:
        sanitized_store = interpreter.InterpreterBuilder.create_masked_store
        interpreter.InterpreterBuilder.create_masked_store = original  # what a hostile submission could do
    assert data["tampered"] == ["InterpreterBuilder.create_masked_store"]
    assert interpreter.InterpreterBuilder.create_masked_store is original is not sanitized_store


# -- races between programs (tools/engine/harness/sanitizer/races.py) ------------------------------------
def test_plain_read_modify_write_from_several_programs_is_a_race(k: Any) -> None:
    x, out = torch.randn(4 * 64), torch.zeros(1)
    data = sanitized(lambda: k.rmw_sum[(4,)](x, out, BLOCK=64))
    assert torch.allclose(out, x.sum().reshape(1), atol=1e-4), "the interpreter's serial order hides it"
    races = only(data, "race")
    kinds = {(v["accesses"], v["first_site"]["line"], v["line"]) for v in races}
    assert ("store/store", LINES["race-store"], LINES["race-store"]) in kinds
    assert ("store/load", LINES["race-store"], LINES["race-load"]) in kinds
    v = next(v for v in races if v["accesses"] == "store/store")
    a, b = v["race_programs"]
    assert a != b and v["arg"] == "out_ptr" and v["element"] == 0 and v["kernel"] == "rmw_sum"
    assert data["race_check"] == {"launches": 1, "partial": 0}


def test_atomics_same_value_flags_and_locked_updates_are_not_races(k: Any) -> None:
    x, out = torch.randn(4 * 64), torch.zeros(1)
    assert only(sanitized(lambda: k.atomic_sum[(4,)](x, out, BLOCK=64)), "race") == []
    flag, y = torch.zeros(1, dtype=torch.int32), torch.empty(4 * 64)
    assert only(sanitized(lambda: k.same_flag[(4,)](x, flag, y, BLOCK=64)), "race") == []
    out, lock = torch.zeros(1), torch.zeros(1, dtype=torch.int32)
    assert only(sanitized(lambda: k.locked_sum[(4,)](x, out, lock, BLOCK=64)), "race") == []
    assert torch.allclose(out, x.sum().reshape(1), atol=1e-4)


def test_disjoint_blocks_and_in_place_updates_are_not_races(k: Any) -> None:
    x, y = torch.randn(300), torch.empty(300)
    assert only(sanitized(lambda: k.masked[(3,)](x, y, 300, BLOCK=128)), "race") == []
    assert only(sanitized(lambda: k.masked[(3,)](x, x, 300, BLOCK=128)), "race") == []  # each program its own


def _races(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The race records without the raw addresses (which differ between layouts by construction)."""
    return [(v["accesses"], v["arg"], v["element"], v["first_site"]["line"], v["line"], v["lanes"],
             v["race_programs"], v["program_ids"]) for v in only(data, "race")]


def test_races_reported_do_not_depend_on_where_the_arguments_lie(k: Any) -> None:
    """Both arrays take 128 conflicting stores. The detector used to look at the first 64 conflicting
    addresses in address order only, so it named the race of whichever argument the allocator had put
    lower in memory (what else the process had allocated before decided) and missed the other."""
    reports = []
    for a_first in (True, False):
        mem = torch.zeros(2 * 128)
        lo, hi = _own(mem[:128]), _own(mem[128:])
        a, b = (lo, hi) if a_first else (hi, lo)
        reports.append(_races(sanitized(lambda a=a, b=b: k.two_racy_stores[(2,)](a, b, BLOCK=128))))
    reports.append(_races(sanitized(lambda: k.two_racy_stores[(2,)](torch.zeros(128), torch.zeros(128), BLOCK=128))))
    assert reports[0] == reports[1] == reports[2]
    assert [(r[0], r[1], r[4], r[5]) for r in reports[0]] == [
        ("store/store", "a_ptr", LINES["race-a"], 128), ("store/store", "b_ptr", LINES["race-b"], 128)]



def test_an_out_of_bounds_cas_reads_the_same_whatever_ran_before(k: Any) -> None:
    """An out-of-bounds CAS lane runs on a scratch word. One word shared by every launch kept the 1 the
    first attempt wrote, so the second identical launch read 1 (a spin lock would then spin for ever):
    the outcome followed what had run earlier in the process."""
    seen = []
    for _ in range(2):
        lock, out = torch.zeros(1, dtype=torch.int32), torch.full((1,), -1, dtype=torch.int32)
        data = sanitized(lambda lock=lock, out=out: k.cas_past_end[(1,)](lock, out))
        seen.append((out.item(), lock.item(), [(v["kind"], v["line"]) for v in data["violations"]]))
    assert seen == [(0, 0, [("oob_atomic", LINES["cas-oob"])])] * 2



def _overrun_through_lost_provenance(k: Any, kernel: str) -> list[list[tuple[Any, ...]]]:
    """Program 1 reads 64 floats past the 64 of x through a pointer that went through an integer;
    program 0 writes y. Run with y right after x (the overrun lands in y) and with y elsewhere."""
    reports = []
    for y_after_x in (True, False):
        mem = torch.zeros(3 * 64)
        x = _own(mem[:64])
        x.copy_(torch.randn(64))
        y = _own(mem[64:128]) if y_after_x else torch.zeros(64)
        if kernel == "int_cast_tail":
            data = sanitized(lambda x=x, y=y: k.int_cast_tail[(2,)](x, y, BLOCK=64))
        else:
            table = torch.tensor([x.data_ptr()], dtype=torch.int64)
            data = sanitized(lambda x=x, y=y, table=table: k.loaded_pointer_tail[(2,)](table, x, y, BLOCK=64))
        reports.append(sorted((v["kind"], v["arg"], v["line"], v.get("attribution"), v["lanes"])
                              for v in data["violations"]))
    return reports


@pytest.mark.parametrize(("kernel", "line"), [("int_cast_tail", "int-cast-load"), ("loaded_pointer_tail", "table-load")])
def test_a_pointer_through_an_integer_keeps_its_argument(k: Any, kernel: str, line: str) -> None:
    """Without provenance such a pointer was checked against every argument, so the same overrun was an
    oob_load when y lay elsewhere and a valid load of y plus a race with program 0 when the allocator
    had put y right after x."""
    with_y_after, apart = _overrun_through_lost_provenance(k, kernel)
    assert with_y_after == apart == [("oob_load", "x_ptr", LINES[line], "provenance", 64)]


# -- guard zones (tools/engine/harness/interpreter_guard.py) ---------------------------------------
@pytest.fixture
def guarded(k: Any) -> Iterator[None]:
    from tools.engine.harness import interpreter_guard

    interpreter_guard.install({})
    try:
        yield
    finally:
        interpreter_guard.uninstall()


def _head(mem: torch.Tensor, n: int) -> torch.Tensor:
    """The first ``n`` floats of ``mem`` as a tensor with its own storage: what lies after it is ours to watch."""
    return torch.frombuffer(memoryview(mem.numpy()).cast("B")[:4 * n], dtype=torch.float32)


def test_guard_zones_keep_an_unmasked_tail_store_off_the_neighbouring_memory(k: Any, guarded: None) -> None:
    from tools.engine.harness import interpreter_guard

    xmem, ymem = torch.full((512,), 5.0), torch.full((512,), 7.0)
    x, y = _head(xmem, 300), _head(ymem, 300)
    x.copy_(torch.arange(300, dtype=torch.float32))
    k.tail[(3,)](x, y, 300, BLOCK=128)
    assert torch.equal(y, x + 1.0)  # its own elements are written back
    assert torch.all(ymem[300:] == 7.0) and torch.all(xmem[300:] == 5.0)  # nothing past either storage
    with interpreter_guard.suspended():  # the same launch without guard zones writes past y
        k.tail[(3,)](x, y, 300, BLOCK=128)
    assert torch.all(ymem[300:384] == 6.0)


def test_guard_zones_read_as_zeros(k: Any, guarded: None) -> None:
    x = _head(torch.full((512,), 5.0), 300)
    x.zero_()
    y = torch.full((384,), -1.0)
    k.tail[(3,)](x, y, 300, BLOCK=128)
    assert torch.all(y == 1.0)  # lanes 300..383 read the zero guard zone, not the 5.0 after x


def test_the_sanitizer_still_sees_the_arguments_own_extent(k: Any, guarded: None) -> None:
    x, y = torch.randn(300), torch.empty(300)
    data = sanitized(lambda: k.tail[(3,)](x, y, 300, BLOCK=128))
    (st,) = only(data, "oob_store")
    assert (st["arg"], st["lanes"], st["valid_elements"]) == ("y_ptr", 84, [0, 300])


def test_pad_bytes_cover_the_storage_within_bounds() -> None:
    from tools.engine.harness.interpreter_guard import MAX_PAD, MIN_PAD, pad_bytes

    assert pad_bytes(0) == MIN_PAD and pad_bytes(10 << 20) == 10 << 20 and pad_bytes(1 << 30) == MAX_PAD
    assert all(pad_bytes(n) % 64 == 0 and pad_bytes(n) >= min(n, MAX_PAD) for n in (1, 4095, 65537, 3 << 20))


def test_descriptor_overrun_into_a_neighbouring_argument_is_out_of_bounds_not_a_race(k: Any) -> None:
    """Rows 6..7 of a 6-row descriptor read past x. Placed so that they fall inside y (which program 0
    writes), they used to count as valid loads of y (descriptor pointers had no provenance) and as a
    race with program 0's stores: a verdict that followed the allocator, not the kernel."""
    layouts = []
    for gap in (0, 32):  # y directly after x (rows 6..7 of x are y's rows 0..1), and one row further
        mem = torch.zeros((6 + 6) * 32 + gap)
        x, y = _own(mem[:192]).view(6, 32), _own(mem[192 + gap:192 + gap + 192]).view(6, 32)
        x.copy_(torch.randn(6, 32))
        data = sanitized(lambda: k.descriptor_rows[(2,)](x, y, 8, 32, BM=4, BN=32))
        layouts.append({v["kind"] for v in data["violations"]})
    assert layouts == [{"oob_load", "oob_store"}] * 2


def _own(view: torch.Tensor) -> torch.Tensor:
    """``view``'s elements as a tensor with its own storage at the same address (a separate argument)."""
    return torch.frombuffer(memoryview(view.numpy()).cast("B"), dtype=view.dtype)


def test_guard_zones_keep_writes_made_through_a_raw_address(k: Any, guarded: None) -> None:
    """Only the bytes a launch changed in the padded copy are written back: what the kernel wrote
    to the original storage through a raw address stays (a pointer array holding data_ptr())."""
    from tools.engine.harness.interpreter_guard import _Padded

    x = torch.arange(8, dtype=torch.float32)
    pads = _Padded()
    view = pads.tensor(x)
    assert view.data_ptr() != x.data_ptr() and torch.equal(view, x)
    view[1] = 100.0  # written through the argument pointer: lands in the copy
    x[5] = -5.0  # written through the original address meanwhile
    pads.restore()
    assert x.tolist() == [0.0, 100.0, 2.0, 3.0, 4.0, -5.0, 6.0, 7.0]


def test_guarded_copies_are_aligned_like_torch(k: Any, guarded: None) -> None:
    from tools.engine.harness.interpreter_guard import _Padded

    pads = _Padded()
    views = [pads.tensor(torch.randn(n)) for n in (1, 7, 300, 4097)]
    assert all(v.data_ptr() % 64 == 0 for v in views)
