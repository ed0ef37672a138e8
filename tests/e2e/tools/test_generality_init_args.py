"""The task's float hyper-parameters are in scope: the generality init-args axis builds the reference and
the submission with a varied value (tools/generality/init_args.py), so a kernel that hard-codes the task's
slope fails with the argument, both values and the mismatch named, and reruns to the same failure
(tests/kernels/leaky_relu_slope; a manifest generator's float argument likewise,
tests/kernels/leaky_relu_slope_manifest); a kernel that ignores arguments its task's Model ignores passes, and a
value the reference refuses is not the kernel's failure (tests/kernels/init_args_unused). The reviews run
in tests/e2e/test_kernel_verdicts.py, which calls ``check_init_args`` on each."""

from __future__ import annotations

from tests.kernelfiles import Reviewed


def check_init_args(run: Reviewed) -> None:
    """Reviewed with builds, correctness, generality, one seed (tests/e2e/test_kernel_verdicts.py)."""
    items = [e for e in run.review.evidence if e.tool == "generality" and e.summary.startswith("init_args")]
    assert len(items) == 1, [e.summary for e in run.review.evidence if e.tool == "generality"]
    (item,) = items
    if run.path.parent.name == "init_args_unused":
        # dropout_p 0.7 -> 1.3 is refused by nn.Dropout (not applicable); the unused scale passes
        assert item.outcome == "pass" and "scale=3.25 (nominal 2.0)" in item.summary, item.summary
        assert "1 not accepted by the reference" in item.summary, item.summary
        return
    # a manifest's generator argument is varied through the case's params, a constructor float by position
    manifest = run.path.parent.name == "leaky_relu_slope_manifest"
    name = "slope" if manifest else "negative_slope"
    if run.want["generality"] == "pass":
        assert item.outcome == "pass" and f"{name}=0.265 (nominal 0.01)" in item.summary, item.summary
        return
    assert item.outcome == "fail" and item.defect == "mismatch", item.summary
    assert item.summary.startswith(f"init_args: {name}=0.265 (nominal 0.01) fails: output 0:"), item.summary
    assert "the same inputs pass with the nominal value(s)" in item.summary, item.summary
    if manifest:
        assert item.inputs["case"]["params"]["slope"] == 0.265 and '"slope":0.265' in item.rerun, item.rerun
    else:
        assert {str(k): v for k, v in item.inputs["case"]["init_args"].items()} == {"0": 0.265}
        assert '"init_args":{"0":0.265}' in item.rerun, item.rerun
