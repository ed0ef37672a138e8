"""The JSON contract of ``kreview review --format json``: the shape of what it writes is pinned by a golden
(tests/data/contract/review-json.schema.json, the serialisation schema of ``Review``), and a scripted review's
``--format json`` output keeps each evidence item's ``result`` exactly as the tool recorded it (a mapping of
the tool's own keys), whatever typed models the readers inside the reviewer use.

A deliberate change of the contract regenerates the golden::

    python -c "import json; from reviewer.core.models import Review; print(json.dumps(
        Review.model_json_schema(mode='serialization'), indent=2, sort_keys=True))" \
        > tests/data/contract/review-json.schema.json
"""

from __future__ import annotations

import json

import pytest

from reviewer.cli.common import OutFormat, _emit
from reviewer.core.models import Review
from tests.conftest import DATA

GOLDEN = DATA / "contract" / "review-json.schema.json"

# Results as tools record them: nested mappings, lists, numbers, nulls (benchmark, roofline, resources).
RESULTS = {
    "benchmark-1": {"summaries": {"submission/eager": {"median_us": 12.5, "ci95_us": [12.1, 12.9], "n": 30}},
                    "speedup": 1.8, "note": None},
    "roofline-1": {"bounds": {"memory_us": 3.2, "compute_us": 0.4}, "bound": "memory", "fraction": 0.26},
    "resources-1": {"registers": 40, "spill_stores": 0, "smem_per_block": 4096,
                    "occupancy": {"theoretical": 0.75}, "arch": "sm_90"},
}


def _review() -> Review:
    return Review.model_validate({
        "run_id": "r1", "status": "awaiting_signoff", "overall": "accept", "seed": 3,
        "created_at": "2026-12-04T00:00:00+00:00",
        "submission": {"root": "sub", "format": "kernelbench", "framework": "triton",
                       "reference_file": "reference.py", "submission_file": "submission.py", "name": "sub"},
        "criteria": [{"id": "performance", "title": "Performance", "verdict": "pass", "summary": "fast",
                      "evidence": list(RESULTS)}],
        "evidence": [{"id": i, "tool": i.split("-")[0], "criteria": ["performance"], "outcome": "pass",
                      "summary": i, "result": r, "rerun": f"kreview rerun sub --tool {i.split('-')[0]}"}
                     for i, r in RESULTS.items()],
    })


def test_review_json_shape_matches_the_golden() -> None:
    now = Review.model_json_schema(mode="serialization")
    assert now == json.loads(GOLDEN.read_text()), (
        "the JSON contract of --format json changed; if on purpose, regenerate the golden (see this module)")


def test_the_golden_pins_result_as_a_free_mapping() -> None:
    ev = json.loads(GOLDEN.read_text())["$defs"]["Evidence"]["properties"]
    assert ev["result"]["type"] == "object" and ev["result"].get("additionalProperties", True) is True
    assert {"id", "tool", "criteria", "outcome", "summary", "inputs", "config", "result", "rerun",
            "duration_s"} <= set(ev)


def test_format_json_writes_results_verbatim(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    _emit(_review(), OutFormat.json)
    out = json.loads(capsys.readouterr().out)
    assert {e["id"]: e["result"] for e in out["evidence"]} == RESULTS
    assert set(out) == set(json.loads(GOLDEN.read_text())["properties"])
