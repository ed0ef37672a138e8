"""The sanitizer's per-kernel argument list is in argument order, whatever addresses the storages got:
a rerun of the same launch must describe its arguments identically (evidence reproduces bit for bit)."""

from __future__ import annotations

from tools.engine.harness.sanitizer.report import Region, Report


def _region(name: str, start: int, position: int) -> Region:
    return Region(name=name, start=start, end=start + 64, base=start, itemsize=4, dtype="float32", shape=[16],
                  position=position)


def test_kernel_args_follow_argument_order_not_addresses() -> None:
    described = []
    for starts in ((4096, 1024, 8192), (1024, 8192, 4096)):  # two runs, the allocator placed them differently
        report = Report("3.8.0")
        regions = [_region(n, s, i) for i, (n, s) in enumerate(zip(("x", "y", "out"), starts))]
        report.begin_launch("add_kernel", regions)
        described.append(report.data["kernels"]["add_kernel"]["args"])
    assert [a["arg"] for a in described[0]] == ["x", "y", "out"]
    assert described[0] == described[1]
