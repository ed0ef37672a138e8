"""Every file under tests/kernels/resources_* gets the verdicts its docstring names, and a failing
resources verdict names its defect with the compiler's figures. The reviews run in
tests/e2e/test_kernel_verdicts.py, which calls ``check_resources``/``check_resources_cuda`` on each."""

from __future__ import annotations

from pathlib import Path

from tests.kernelfiles import Reviewed, expectations

# Rationale: each file is built to show exactly one defect; the test checks it is that one.
DEFECTS = {"smem_over_limit": "smem_over_limit",
           "dynamic_smem_too_big": "smem_over_limit", "static_smem_too_big": "smem_over_limit"}
# A concern: the item passes (the kernel launches) and names it, with a warning finding for the draft.
CONCERNS = {"spills_one_warp": "register_spills"}


def resources_tools(path: Path) -> list[str]:
    # an autotuned kernel: the autotune tool hands every config's launch to the resources compile
    return (["builds", "resources"] + (["correctness"] if "correctness" in expectations(path) else [])
            + (["autotune"] if "autotune" in path.stem else []))


def check_resources(run: Reviewed) -> None:
    """Reviewed with ``resources_tools`` (tests/e2e/test_kernel_verdicts.py)."""
    path, review = run.path, run.review
    items = [e for e in review.evidence if e.tool == "resources" and e.outcome in ("pass", "fail")]
    assert {e.result["arch"] for e in items} == {"sm_90", "sm_80"}
    for e in items:
        assert e.result["registers"] > 0 and e.result["threads_per_block"] > 0
        assert e.artifacts and all((Path(review.run_dir) / a).exists() for a in e.artifacts)
        assert any(a.endswith(".ttgir") for a in e.artifacts) and any(a.endswith(".ptx") for a in e.artifacts)
    if path.stem in DEFECTS:
        failing = [e for e in items if e.outcome == "fail"]
        assert {e.defect for e in failing} == {DEFECTS[path.stem]}
        assert len(failing) == 2  # both sm_90 and sm_80
        finding = [f for f in review.findings if f.category == DEFECTS[path.stem]]
        assert finding and all(f.confirmed_by for f in finding)
        for e in failing:
            assert e.result["smem_per_block"] > e.result["limits"]["smem_per_block_optin"]
            assert e.result["spill_stores"] == 0
    if "autotune" in path.stem:
        pruned = [e for e in review.evidence if e.tool == "resources" and e.defect == "autotune_config_pruned"]
        assert {t for e in pruned for t in ("sm_90", "sm_80") if f"on {t}:" in e.summary} == {"sm_90", "sm_80"}, \
            [e.summary for e in review.evidence if e.tool == "resources"]
        assert all(e.outcome == "info" and "BK=128" in e.summary for e in pruned)
    if path.stem in CONCERNS:
        assert all(e.outcome == "pass" for e in items) and review.overall != "reject"
        flagged = [e for e in items if e.defect == CONCERNS[path.stem]]
        assert len(flagged) == 2 and all(e.result["spill_stores"] > 0 and e.result["spill_loads"] > 0 for e in flagged)
        finding = [f for f in review.findings if f.category == CONCERNS[path.stem]]
        assert finding and all(f.severity == "warning" and f.confirmed_by for f in finding)


def check_resources_cuda(run: Reviewed) -> None:
    """Reviewed with builds, resources where nvcc is installed (tests/e2e/test_kernel_verdicts.py)."""
    path, review = run.path, run.review
    items = [e for e in review.evidence if e.tool == "resources"]
    assert {e.config["target"] for e in items} == {"sm_90", "sm_80"}
    assert all(e.config["mode"] == "device-only" for e in items), [e.config.get("attempts") for e in items]
    if path.stem in DEFECTS:
        assert {e.defect for e in items} == {DEFECTS[path.stem]}
    else:
        for e in items:
            assert e.result["kernel"] == "softmax_rows" and e.result["threads_per_block"] == 256
            assert e.result["dynamic_smem"] == 1024 and e.result["occupancy"]["occupancy"] == 1.0
