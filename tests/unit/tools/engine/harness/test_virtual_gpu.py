"""The virtual device a CPU-only review answers device queries with follows the review's target."""

from __future__ import annotations

from tools.engine.harness.virtual_gpu import spec_for


def test_virtual_device_follows_the_target() -> None:
    assert spec_for(None)["key"] == "H100"
    a100 = spec_for("A100")
    assert (a100["arch"], a100["properties"]["multiprocessor_count"]) == ("sm_80", 108)
    assert a100["properties"]["max_shared_mem"] == 166912  # gpu_limits.yaml, opt-in per block
    assert spec_for(None, ["sm_89"])["key"] == "L4"
    unknown = spec_for("no such gpu")
    assert unknown["key"] == "H100" and "not in the table" in unknown["chosen_by"]
