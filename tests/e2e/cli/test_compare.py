"""``kreview compare``: two implementations of one task reviewed with one seed, a table naming each by
its directory, and a ranking whose reasons cite what separates them (here a strided-access concern)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reviewer.cli import app
from tests.kernelfiles import KERNELS, materialize


def test_compare_ranks_by_reasons(tmp_path: Path) -> None:
    good = materialize(KERNELS / "compiled_colsum" / "good_row_tiles.py", tmp_path / "row_tiles")
    bad = materialize(KERNELS / "compiled_colsum" / "bad_strided_loads.py", tmp_path / "strided")
    args = ["compare", str(bad), str(good), "--seed", "11", "--runs-dir", str(tmp_path / "runs"),
            "--only", "builds", "--only", "resources", "--only", "compiled_code"]
    res = CliRunner().invoke(app, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert [c["name"] for c in data["columns"]] == ["strided", "row_tiles"] and data["same_reference"]
    assert [r["name"] for r in data["ranking"]] == ["row_tiles", "strided"]
    assert any("strided_access" in reason for reason in data["ranking"][1]["reasons"])
    strided = data["columns"][0]
    assert set(strided["compiled"]) == {"sm_90", "sm_80"} and "strided_access" in strided["compiled"]["sm_90"]
    assert strided["criteria"]["builds"] == "pass"


def test_compare_needs_two_directories(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["compare", str(tmp_path)])
    assert res.exit_code == 2


def test_compare_case_reruns_a_port_divergence_bit_for_bit(tmp_path: Path) -> None:
    """``--case`` runs only that case on each pair (here the original against its port, which names it in
    kreview.toml), judged by float64; two runs give the same outputs' sha256."""
    import shutil

    original = tmp_path / "original"
    shutil.copytree(KERNELS / "port" / "original", original)
    port = materialize(KERNELS / "port" / "bad_dropped_tail.py", tmp_path / "tail")
    (port / "kreview.toml").write_text('[port]\noriginal = "../original"\n')
    case = '{"id":"x","params":{"batch":1,"dim":3},"seed":5}'
    args = ["compare", str(port), str(original), "--case", case, "--seed", "5", "--device", "cpu", "--format", "json"]
    runs = []
    for _ in range(2):
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        runs.append(json.loads(res.output))
    (check,) = runs[0]
    assert [s["name"] for s in check["sides"]] == ["original", "tail"]  # the original first
    assert check["disagree"] and check["kind"] == "outputs" and check["closer_to_float64"] == "original"
    assert [s["output_digest"] for s in check["sides"]] == [s["output_digest"] for s in runs[1][0]["sides"]]
    no_seed = CliRunner().invoke(app, args[:args.index("--seed")] + ["--format", "json"])
    assert no_seed.exit_code == 2
