"""Unit tests of the integrity building blocks: the static scan (false positives and negatives on
snippets), the operator recorder, output_spread, the TF32 rounding transform, the harness guard,
pure checks on synthetic probes, and the roofline hook in the rubric. Nothing here starts a child."""

from __future__ import annotations

import shutil
import textwrap
import time
from pathlib import Path

import pytest
import torch

from reviewer.ingest import load_submission
from reviewer.core.models import Evidence
from reviewer.rubric import CriterionSpec, Rubric, judge
from tests.kernelfiles import KERNELS, materialize
from tools.engine.compare import output_spread
from tools.engine.harness import frames
from tools.engine.harness.instruments import harness_guard
from tools.engine.harness.instruments.harness_guard import guard
from tools.engine.harness.instruments.torch_ops import OpRecorder, base_name, kind_of, op_cost, open_library_kernels
from tools.engine.harness.transforms import TRANSFORMS
from tools.integrity import checks as C
from tools.integrity.static_scan import Scan, scan_submission

REFERENCE = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)

def get_inputs():
    return [torch.randn(4, 8)]

def get_init_inputs():
    return []
'''


def _scan(tmp_path: Path, body: str) -> Scan:
    (tmp_path / "reference.py").write_text(REFERENCE)
    (tmp_path / "submission.py").write_text(textwrap.dedent(body))
    return scan_submission(load_submission(tmp_path))


def _defects(scan: Scan, severity: str | None = None) -> set[tuple[str, str]]:
    return {(f.category, f.defect) for f in scan.findings if severity is None or f.severity == severity}


# -- static scan: no false positives ------------------------------------------------------------

def test_glue_and_legitimate_patterns_are_not_flagged(tmp_path: Path) -> None:
    scan = _scan(tmp_path, '''
        import ctypes, functools, os
        import torch, torch.nn as nn, triton, triton.language as tl

        torch.backends.cudnn.benchmark = True
        _CFG = {}

        @triton.jit
        def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            o = tl.arange(0, BLOCK)
            tl.store(y_ptr + o, tl.exp(tl.load(x_ptr + o, mask=o < n)), mask=o < n)

        @functools.lru_cache(None)
        def block(n):
            return triton.next_power_of_2(n)

        def test_against_torch(x):
            return torch.softmax(x, -1)

        class ModelNew(nn.Module):
            def forward(self, x):
                x = x.contiguous().view(-1, x.shape[-1])
                if x.data_ptr() % 16:
                    x = x.clone()
                cfg = _CFG.setdefault(hash((x.shape[0], x.shape[1])), block(x.shape[1]))
                src = open(os.path.join(os.path.dirname(__file__), "helper.cu")).read()
                y = torch.empty_like(x)
                handle = ctypes.c_void_p(x.data_ptr())  # a pointer handed to compiled code
                k[(1,)](x, y, x.numel(), BLOCK=cfg)
                return y

        if __name__ == "__main__":
            torch.testing.assert_close(ModelNew()(torch.randn(4, 8)), torch.softmax(torch.randn(4, 8), -1))
    ''')
    assert _defects(scan, "fail") == set(), [f.plain() for f in scan.findings]
    assert not scan.by_category("library")  # only the unreachable test helper calls torch.softmax


def test_a_dlpack_handoff_is_named_but_does_not_fail(tmp_path: Path) -> None:
    scan = _scan(tmp_path, '''
        import torch, torch.nn as nn
        from torch.utils.dlpack import to_dlpack

        class ModelNew(nn.Module):
            def forward(self, x):
                capsule = to_dlpack(x)
                return x
    ''')
    hits = [f for f in scan.findings if f.defect == "dlpack_handoff"]
    assert [(f.severity, f.line) for f in hits] == [("info", 7)], [f.plain() for f in scan.findings]
    assert "fail" not in {f.severity for f in scan.findings}


def test_reference_families_exclude_glue(tmp_path: Path) -> None:
    scan = _scan(tmp_path, "class ModelNew:\n    pass\n")
    assert scan.reference_families == {"softmax": "torch.softmax"}


# -- static scan: each hack pattern ---------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ("setattr(torch, 'allclose', lambda *a, **k: True)", ("harness", "monkeypatch")),
    ("time.perf_counter = lambda: 0.0", ("harness", "monkeypatch")),
    ("inspect.stack()", ("harness", "harness_access")),
    ("torch.initial_seed()", ("harness", "harness_access")),
    ("os.dup2(3, 1)", ("harness", "harness_access")),
    ("torch.load('answers.pt')", ("harness", "loads_data")),
    ("open('expected_output.bin').read()", ("harness", "reads_grader_files")),
    ("atexit.register(print)", ("deferred", "side_work")),
    ("threading.Thread(target=print).start()", ("deferred", "side_work")),
    ("dict(os.environ.items())", ("environment", "reads_environment")),
    ("_C[id(x)] = x", ("caching", "cache_key")),
    ("torch.utils._python_dispatch._get_current_dispatch_mode()", ("harness", "harness_access")),
    ("import tools.engine.harness.tensors", ("harness", "harness_access")),
    ("torch._C.DisableTorchFunction()", ("harness", "harness_access")),
    ("ctypes.string_at(x.data_ptr(), 16)", ("harness", "raw_memory_access")),
    ("ctypes.memmove(x.data_ptr(), 0, 16)", ("harness", "raw_memory_access")),
    ("(ctypes.c_float * 4).from_address(x.data_ptr())", ("harness", "raw_memory_access")),
    ("ctypes.cast(x.data_ptr(), ctypes.POINTER(ctypes.c_float * 4))", ("harness", "raw_memory_access")),
    ("torch.ops.aten.exp.default.redispatch(torch._C.DispatchKeySet(torch._C.DispatchKey.CPU), x)",
     ("harness", "harness_access")),
    ("ctypes.CDLL(None).pthread_create(None, None, None, None)", ("harness", "harness_access")),
    ("threading._start_new_thread.__kwdefaults__", ("harness", "harness_access")),
    ("torch._C.TensorBase.numpy(x)", ("harness", "harness_access")),
])
def test_hack_lines_are_flagged(tmp_path: Path, line: str, expected: tuple[str, str]) -> None:
    scan = _scan(tmp_path, f'''
        import atexit, ctypes, inspect, os, threading, time
        import torch, torch.nn as nn
        _C = {{}}

        class ModelNew(nn.Module):
            def forward(self, x):
                {line}
                return x
    ''')
    assert expected in _defects(scan, "fail"), [f.plain() for f in scan.findings]
    found = next(f for f in scan.findings if (f.category, f.defect) == expected)
    assert found.quote.strip() == line and found.file == "submission.py"


def test_an_operator_of_the_submissions_own_namespace_is_no_library_call(tmp_path: Path) -> None:
    scan = _scan(tmp_path, '''
        import torch, torch.nn as nn

        class ModelNew(nn.Module):
            def forward(self, x):
                y = torch.ops.mylib.softmax(x)
                return torch.ops.aten.softmax(y, -1)
    ''')
    calls = [(f.line, f.detail.get("target")) for f in scan.findings if f.defect == "library_call"]
    assert calls == [(7, "torch.ops.aten.softmax")], [f.plain() for f in scan.findings]


def test_library_calls_carry_their_guard(tmp_path: Path) -> None:
    scan = _scan(tmp_path, '''
        import torch, torch.nn as nn, torch.nn.functional as F

        def fallback(x):
            return F.softmax(x, -1)

        class ModelNew(nn.Module):
            def forward(self, x):
                if not x.is_cuda:
                    return torch.softmax(x, -1)
                if x.shape[-1] > 4096:
                    return fallback(x)
                try:
                    return launch(x)
                except RuntimeError:
                    return x.softmax(-1)
    ''')
    sites = {f.line: (f.context, f.gate, f.severity) for f in scan.by_category("library")}
    assert sites[5][0] == "conditional" and "4096" in sites[5][1]
    assert sites[10] == ("device", "not x.is_cuda", "info")
    assert sites[16][0] == "fallback" and sites[16][2] == "fail"


def test_precision_candidates_in_source(tmp_path: Path) -> None:
    scan = _scan(tmp_path, '''
        import torch, torch.nn as nn, triton, triton.language as tl
        torch.backends.cuda.matmul.allow_tf32 = True

        @triton.jit
        def mm(a_ptr, b_ptr, c_ptr):
            a = tl.load(a_ptr)
            b = tl.load(b_ptr)
            c = tl.dot(a, b)
            d = tl.dot(a, b, input_precision="ieee")
            tl.store(c_ptr, (c + d).to(tl.float16))

        class ModelNew(nn.Module):
            def forward(self, x):
                return x.half()
    ''')
    fmts = sorted((f.defect, f.line) for f in scan.by_category("precision"))
    assert fmts == [("float16", 11), ("float16", 15), ("tf32", 3), ("tf32_default", 9)]


def test_cpp_sources_calling_the_reference_op(tmp_path: Path) -> None:
    scan = _scan(tmp_path, '''
        import torch.nn as nn
        from torch.utils.cpp_extension import load_inline
        SRC = """
        #include <torch/extension.h>
        torch::Tensor forward(torch::Tensor x) {
            return at::softmax(x, -1);  // the library does it
        }
        """
        class ModelNew(nn.Module):
            pass
    ''')
    (found,) = scan.by_category("library")
    assert found.line == 7 and "at::softmax" in found.quote and found.detail["cpp"]


# -- the operator recorder ------------------------------------------------------------------------

def test_recorder_kinds_costs_and_sites() -> None:
    a, b = torch.randn(8, 16), torch.randn(16, 4)
    with OpRecorder() as rec:
        y = (a @ b).relu()
        a.view(16, 8).contiguous()
        torch.empty(3)
    ops = {e["op"]: e for e in rec.data["ops"]}
    assert ops["aten::mm"]["cost"] == 8 * 16 * 4 and ops["aten::mm"]["kind"] == "compute"
    assert ops["aten::relu"]["cost"] == y.numel()
    assert ops["aten::view"]["kind"] == "view" and ops["aten::empty"]["kind"] == "alloc"
    assert ops["aten::mm"]["site"]["file"] == Path(__file__).name
    assert ops["aten::mm"]["api"] == "Tensor.matmul"
    assert rec.derived_from_launch(y) is None  # nothing launched


def _own_softmax_body(x: torch.Tensor) -> torch.Tensor:
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def test_an_operator_the_submission_defines_is_opened_not_named() -> None:
    open_library_kernels()  # as at child start, before the submission defines its operator
    _own_softmax = torch.library.custom_op("kreview_unit::softmax", _own_softmax_body, mutates_args=())
    x = torch.randn(4, 8)
    with OpRecorder() as rec:
        y = _own_softmax(x)
    torch.testing.assert_close(y, x.softmax(-1))
    families = {e["family"]: e for e in rec.data["ops"]}
    # the body's operators are recorded at the body's lines; the operator's own name is no library softmax
    assert {"amax", "sub", "exp", "sum", "div"} <= set(families) and "softmax" not in families
    assert families["exp"]["site"]["function"] == "_own_softmax_body" and rec.data["custom_ops"] == 1
    # torch's own operators defined the same way (prims) are not opened
    with OpRecorder() as rec:
        torch.ops.prims.exp.default(x)
    assert [e["op"] for e in rec.data["ops"]] == ["prims::exp"] and "custom_ops" not in rec.data


def _older_softmax(x: torch.Tensor) -> torch.Tensor:
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def _older_double(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def _older_keyset_neg(keyset: object, x: torch.Tensor) -> torch.Tensor:
    assert isinstance(keyset, torch._C.DispatchKeySet)
    return torch.neg(x)


def test_an_operator_registered_with_the_older_library_api_is_opened_too() -> None:
    open_library_kernels()  # as at child start, before the submission registers anything
    lib = torch.library.Library("kreview_unit_older", "DEF")
    lib.define("softmax(Tensor x) -> Tensor")
    lib.define("double(Tensor x) -> Tensor")
    lib.define("negate(Tensor x) -> Tensor")
    lib.impl("softmax", _older_softmax, "CPU")
    lib.impl("double", _older_double, "CompositeExplicitAutograd")
    lib.impl(torch.ops.kreview_unit_older.negate.default, _older_keyset_neg, "CPU", with_keyset=True)
    x = torch.randn(4, 8)
    try:
        with OpRecorder() as rec:
            y = torch.ops.kreview_unit_older.softmax(x)
            z = torch.ops.kreview_unit_older.double(x)
            w = torch.ops.kreview_unit_older.negate(x)
    finally:
        lib._destroy()
    torch.testing.assert_close(y, x.softmax(-1))
    torch.testing.assert_close(z, x * 2)
    torch.testing.assert_close(w, -x)
    families = {e["family"]: e for e in rec.data["ops"]}
    # the CPU kernel's operators at its lines, the composite kernel's and the keyset kernel's (given the device's
    # keys, as the dispatcher gives them) too; no operator is recorded by name
    assert {"amax", "sub", "exp", "sum", "div", "mul", "neg"} <= set(families) and "softmax" not in families, families
    assert families["exp"]["site"]["function"] == "_older_softmax" and rec.data["custom_ops"] == 3
    assert not any(e["op"].startswith("kreview_unit_older::") for e in rec.data["ops"])


def test_every_kernel_the_dispatcher_runs_is_opened_whatever_its_form_or_key() -> None:
    # red team 4: kernels the name/key/device lookup missed; wrapped at registration, each runs traced
    import functools

    open_library_kernels()
    lib = torch.library.Library("kreview_unit_forms", "DEF")
    for op in ("by_partial", "by_instance", "by_backend_select"):
        lib.define(f"{op}(Tensor x) -> Tensor")

    class Kernel:
        def __call__(self, x: torch.Tensor) -> torch.Tensor:
            return torch.exp(x)

    lib.impl("by_partial", functools.partial(torch.sigmoid), "CPU")
    lib.m.impl(b"by_instance", "CPU", Kernel(), False)  # the library object itself, a name in bytes
    lib.impl("by_backend_select", lambda x: torch.tanh(x), "BackendSelect")
    x = torch.randn(4, 8)
    try:
        with OpRecorder() as rec:
            torch.ops.kreview_unit_forms.by_partial(x)
            torch.ops.kreview_unit_forms.by_instance(x)
            torch.ops.kreview_unit_forms.by_backend_select(x)
    finally:
        lib._destroy()
    ops = {e["op"] for e in rec.data["ops"]}
    assert {"aten::sigmoid", "aten::exp", "aten::tanh"} <= ops, ops
    assert not any(o.startswith("kreview_unit_forms::") for o in ops) and rec.data["custom_ops"] == 3
    # an operator of another namespace that is not opened (a compiled one) is compute, whatever its name
    assert kind_of("mylib::empty_rows") == "compute" and kind_of("aten::empty_like") == "alloc"


def test_family_names_and_costs() -> None:
    assert base_name("aten::_softmax") == "softmax" and base_name("aten::addmm") == "matmul"
    assert base_name("aten::convolution") == "convolution" and kind_of("aten::_to_copy") == "movement"
    x, w = torch.randn(1, 3, 8, 8), torch.randn(5, 3, 3, 3)
    out = torch.nn.functional.conv2d(x, w)
    assert op_cost("aten::convolution", (x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1), out) \
        == out.numel() * 3 * 3 * 3


# -- output_spread, rounding ---------------------------------------------------------------------

def test_output_spread_flags_constant_and_tiny_outputs() -> None:
    expected = torch.tanh(torch.randn(64, 64)) * 1e-6
    zero = output_spread(torch.zeros_like(expected), expected)
    assert zero["constant_outputs"] == ["0"] and zero["outputs"][0]["zeros_within_tolerance"]
    good = output_spread(expected * (1 + 1e-7), expected)
    assert good["constant_outputs"] == [] and good["outputs"][0]["correlation"] > 0.999
    flat = output_spread(torch.full_like(expected, 1e-7) + expected * 1e-5, expected)
    assert flat["outputs"][0]["near_constant"]


def test_round_to_tf32_and_fp16() -> None:
    x = torch.randn(10_000)
    tf32 = TRANSFORMS["round_to"](x, {"format": "tf32"})
    rel = ((tf32 - x).abs() / x.abs()).max().item()
    assert 2**-13 < rel <= 2**-11 and ((tf32.view(torch.int32) & 0x1FFF) == 0).all()
    half = TRANSFORMS["round_to"](x, {"format": "float16"})
    assert half.dtype == torch.float32 and torch.equal(half, x.half().float())


# -- harness guard -------------------------------------------------------------------------------

def test_guard_sees_replaced_timer_and_file_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the child's private TMPDIR is quiet; here tmp_path stands for a harness folder
    monkeypatch.setattr(harness_guard, "_CACHES", ())
    monkeypatch.setattr(frames, "_ROOTS", frames._library_roots())
    # the audit hook is process-wide and cannot be removed: in a long pytest process it has seen
    # every earlier test's events; start from an empty record as a sandbox child does
    monkeypatch.setattr(harness_guard, "_EVENTS_SEEN", {})
    monkeypatch.setitem(harness_guard._STATE, "dropped", 0)
    secret = tmp_path / "expected.pt"
    secret.write_bytes(b"x")
    real = time.perf_counter
    try:
        with guard(str(Path(__file__).parent)) as data:
            time.perf_counter = lambda: 0.0
            secret.read_bytes()
    finally:
        time.perf_counter = real
    assert [r["name"] for r in data["replaced_during"]] == ["time.perf_counter"]
    opened = [e for e in data["events"] if e["event"] == "open" and str(secret) in e["arg"]]
    assert opened and opened[0]["site"]["file"] == Path(__file__).name
    assert C._event_verdict(opened[0], "reference.py") == f"opened {secret}"


# -- checks on synthetic probes --------------------------------------------------------------------

def _probe(**kw: object) -> C.IntegrityObservation:
    x = torch.randn(4, 8)
    base: dict[str, object] = {
        "framework": "triton", "on_gpu": False, "case_label": "nominal", "public_seed": False,
        "input_specs": [{"shape": [4, 8], "dtype": "float32"}],
        "ref": {"trace": {"ops": [{"op": "aten::_softmax", "family": "softmax", "kind": "compute", "cost": 32.0,
                                   "count": 1}]}, "outputs": [{"path": "0", "type": "Tensor", "shape": [4, 8]}],
                "mutated_inputs": []},
        "sub": {"calls": [{"launches": 1, "derived_from_launch": True,
                           "outputs": [{"path": "0", "type": "Tensor", "shape": [4, 8]}]}],
                "trace": {"ops": []}, "later_traces": []},
        "expected_a": [x.softmax(-1)], "expected_b": None, "outputs": [[x.softmax(-1)], None, None],
        "inputs_after": [x.clone()], "pristine": [x.clone()], "atol": None, "rtol": None, "scan": Scan(),
        "submission_file": "submission.py"}
    base.update(kw)
    return C.IntegrityObservation(**base)  # type: ignore[arg-type]


def test_library_share_threshold() -> None:
    half = {"ops": [{"op": "aten::exp", "family": "exp", "kind": "compute", "cost": 15.0, "count": 1,
                     "site": {"file": "submission.py", "line": 3}, "api": "torch.exp"}]}
    most = {"ops": [{**half["ops"][0], "cost": 16.0}]}
    sub = _probe().sub
    assert C.check_library(_probe(sub={**sub, "trace": half})).outcome == "pass"
    failed = C.check_library(_probe(sub={**sub, "trace": most}))
    assert failed.outcome == "fail" and failed.defect == "library_compute" and failed.lines == [3]
    assert "torch.exp (aten::exp) at submission.py:3" in failed.summary and "50%" in failed.summary


def test_mutation_allowed_only_where_the_reference_writes() -> None:
    x = torch.randn(4, 8)
    after = [x.clone().zero_()]
    assert C.check_mutation(_probe(inputs_after=after, pristine=[x])).defect == "input_mutation"
    ref = {**_probe().ref, "mutated_inputs": ["0"]}
    assert C.check_mutation(_probe(inputs_after=after, pristine=[x], ref=ref)).outcome == "pass"


def test_broadcast_output_is_not_plain() -> None:
    sub = _probe().sub
    calls = [{**sub["calls"][0], "outputs": [{"path": "0", "type": "Tensor", "shape": [4, 8], "stride": [0, 1]}]}]
    check = C.check_output_type(_probe(sub={**sub, "calls": calls}))
    assert check.outcome == "fail" and "stride 0 along dim 0" in check.summary


# -- the roofline hook ------------------------------------------------------------------------------

def test_impossible_speed_evidence_fails_integrity() -> None:
    rubric = Rubric(name="t", criteria=[CriterionSpec(id="integrity", title="Integrity", question="?",
                                                      tools=["integrity_static", "roofline"])])
    items = [Evidence(id="integrity_static-1", tool="integrity_static", criteria=["integrity"], outcome="pass",
                      summary="clean"),
             Evidence(id="roofline-1", tool="roofline", criteria=["integrity", "performance"], outcome="fail",
                      defect="impossible_speed", summary="3.1 us is below the 12 us memory-bandwidth floor")]
    (verdict,) = judge(rubric, items, {})
    assert verdict.verdict == "fail" and "roofline-1" in verdict.evidence


def test_importing_a_package_the_submission_ships_is_not_harness_access(tmp_path: Path) -> None:
    """A submission with its own reviewer/ package imports its own (the sandbox child makes sure);
    without one, the same import reaches for the reviewer's and is flagged."""
    path = KERNELS / "own_packages" / "torch_own_reviewer_utils.py"
    own = materialize(path, tmp_path / "own")
    assert not [f.message for f in scan_submission(load_submission(own)).findings if f.defect == "harness_access"]
    bare = materialize(path, tmp_path / "bare")
    shutil.rmtree(bare / "reviewer")
    hits = [f.message for f in scan_submission(load_submission(bare)).findings if f.defect == "harness_access"]
    assert hits and all("reviewer.stable" in m for m in hits), hits


def test_a_helper_package_the_submission_ships_is_scanned_too(tmp_path: Path) -> None:
    """The frame-walking tamperer hides in the submission's own kutil/ package, not in submission.py."""
    sub = materialize(KERNELS / "integrity_harness_globals" / "frames_rebind_harness.py", tmp_path / "s")
    scan = scan_submission(load_submission(sub))
    assert "kutil/launch.py" in scan.files
    hits = {(f.file, f.message.split(" (")[0]) for f in scan.findings if f.defect == "harness_access"}
    assert ("kutil/launch.py", "reads frame attribute .tb_frame") in hits, hits


# -- alarms (tools/engine/harness/alarm.py) --------------------------------------------------------

_ALARM = {"event": "object.__getattr__", "arg": "tb_frame", "file": "submission.py", "line": 38,
          "function": "_doctor_replies", "role": "submission", "child": "submission#4", "request": "load"}


def _guarded(events: list[dict]) -> dict:
    return {**_probe().sub, "guard": {"replaced_before": [], "replaced_during": [], "events": events, "watched": 40}}


def test_an_alarm_fails_the_harness_check_even_when_the_reply_claims_nothing_happened() -> None:
    check = C.check_harness(_probe(sub=_guarded([]), alarms=[_ALARM], child="submission#4"), "reference.py")
    assert (check.outcome, check.defect, check.lines) == ("fail", "harness_tampering", [38])
    assert "took a frame (tb_frame)" in check.summary and "submission.py:38" in check.summary
    assert "reported out of band when it happened" in check.summary
    assert "its reply was rewritten" in check.summary and "at import" in check.summary


def test_a_reply_that_names_the_alarms_event_is_not_called_rewritten() -> None:
    told = [{"event": "object.__getattr__", "arg": "tb_frame", "site": {"file": "submission.py", "line": 38},
             "phase": "import or an earlier call", "count": 1}]
    check = C.check_harness(_probe(sub=_guarded(told), alarms=[_ALARM], child="submission#4"), "reference.py")
    assert check.outcome == "fail" and "rewritten" not in check.summary
    # an alarm raised in another child is never said to be missing from this child's reply
    other = C.check_harness(_probe(sub=_guarded([]), alarms=[_ALARM], child="submission#9"), "reference.py")
    assert other.outcome == "fail" and "rewritten" not in other.summary


def test_alarms_alone_decide_integrity_where_no_probe_judged_them() -> None:
    check = C.check_alarms([_ALARM, {**_ALARM, "child": "submission#5"}], "submission.py")
    assert (check.outcome, check.defect, check.lines) == ("fail", "harness_tampering", [38])
    assert check.summary.count("submission.py:38") == 1  # one per (event, file, line), whichever child
    assert C.check_harness(_probe(sub=_guarded([])), "reference.py").outcome == "pass"


def test_core_operators_are_withheld_only_where_the_trace_never_saw_them() -> None:
    probe = _probe()
    library = C.check_library(probe)
    assert library.outcome == "pass"
    assert C.withheld_candidates(probe, library) == ["aten::_softmax"]
    # the trace saw the core family (a later call included): check_library judged its share, nothing hidden
    seen = {"ops": [{"op": "aten::_softmax", "family": "softmax", "kind": "compute", "cost": 1.0, "count": 1}]}
    later = _probe(sub={**probe.sub, "later_traces": [seen]})
    assert C.withheld_candidates(later, C.check_library(later)) == []
    # a first call that already differs is correctness's finding; JAX is traced another way
    wrong = _probe(outputs=[[torch.zeros(4, 8)], None, None])
    assert C.withheld_candidates(wrong, C.check_library(wrong)) == []
    pallas = _probe(framework="pallas")
    assert C.withheld_candidates(pallas, C.check_library(pallas)) == []
    failed = C.Check("library_compute", "fail", "", "")
    assert C.withheld_candidates(probe, failed) == []
    # a call on a slice (a decoy) is not the core operator seen: the reference's call is 16x300, this one 1x8
    big = {"args": [{"shape": [16, 300], "dtype": "float32"}], "out": [{"shape": [16, 300], "dtype": "float32"}]}
    ref = {**probe.ref, "trace": {"ops": [{**probe.ref["trace"]["ops"][0], "largest": big}]}}
    decoy = {"ops": [{**seen["ops"][0], "largest": {"args": [{"shape": [1, 8]}], "out": [{"shape": [1, 8]}]}}]}
    sliced = _probe(ref=ref, sub={**probe.sub, "trace": decoy})
    assert C.withheld_candidates(sliced, C.check_library(sliced)) == ["aten::_softmax"]
    whole = _probe(ref=ref, sub={**probe.sub, "later_traces": [{"ops": [{**seen["ops"][0], "largest": big}]}]})
    assert C.withheld_candidates(whole, C.check_library(whole)) == []


def test_a_moved_output_or_an_error_without_the_operators_fails() -> None:
    from tools.engine.compare import compare_outputs

    x = torch.randn(4, 8)
    good = compare_outputs([x.softmax(-1)], [x.softmax(-1)])
    kept = C.check_withheld(["aten::_softmax"], {"withheld": ["aten::_softmax"]}, good, True, "third")
    assert kept.outcome == "pass" and kept.defect is None
    moved = compare_outputs([torch.full((4, 8), float("nan"))], [x.softmax(-1)])
    hidden = C.check_withheld(["aten::_softmax"], {}, moved, False, "third")
    assert hidden.outcome == "fail" and hidden.defect == "hidden_library_work"
    assert "32 of 32 output elements moved (32 of them NaN or infinite" in hidden.summary
    raised = C.check_withheld(["aten::_softmax"], {"error": {"type": "RuntimeError", "message": "boom"}}, None,
                              False, "third")
    assert raised.outcome == "fail" and "RuntimeError: boom" in raised.summary
    # host copies the withheld run poisoned are named, with the line that made them
    copies = [{"api": "Tensor.__array__", "file": "submission.py", "line": 24, "count": 1, "elements": 4800}]
    copied = C.check_withheld(["aten::_softmax"], {"exports_poisoned": copies}, moved, False, "third")
    assert copied.outcome == "fail" and copied.defect == "hidden_library_work"
    assert "host copies of tensor data (Tensor.__array__ at submission.py:24 (4800 elements))" in copied.summary
    assert copied.result["host_copies_poisoned"] == copies
