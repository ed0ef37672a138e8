"""Text a submission steers (what it printed or raised ends up in summaries and messages) keeps every
CI format valid and inert: JUnit stays well-formed XML, SARIF messages carry no controls or links."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from reviewer.formats.junit import to_junit
from reviewer.formats.sarif import to_sarif
from tests.unit.reviewer.formats.test_formats import JUNIT, SARIF, _review

HOSTILE = "boom \x1b[31mred\x1b[0m \x00nul \x07bell \u202eevil\u202c [click](0) {0} \ud800 end"


def _hostile(tmp_path: Path):
    review = _review(tmp_path)
    review.criteria[1].summary = HOSTILE
    for e in review.evidence:
        e.summary = HOSTILE
    review.findings[0].message = HOSTILE
    return review


def test_junit_stays_valid_xml_with_control_characters_from_a_submission(tmp_path: Path) -> None:
    xml = to_junit(_hostile(tmp_path))
    JUNIT.validate(xml)
    case = {c.get("name"): c for c in ET.fromstring(xml).iter("testcase")}["correctness"]
    message = case.find("failure").get("message")
    assert message.startswith("boom ") and "red" in message and "end" in message
    for bad in ("\x1b", "\x00", "\x07", "\u202e", "\ud800"):
        assert bad not in xml


def test_sarif_messages_carry_no_controls_and_no_embedded_links(tmp_path: Path) -> None:
    doc = to_sarif(_hostile(tmp_path))
    SARIF.validate(doc)
    text = json.dumps(doc, ensure_ascii=False)
    for bad in ("\x1b", "\x00", "\x07", "\u202e", "\\ud800"):
        assert bad not in text
    messages = [r["message"]["text"] for r in doc["runs"][0]["results"]]
    hostile = [m for m in messages if "boom" in m]
    assert hostile and all("\\[click\\](0)" in m and "[click](0)" not in m.replace("\\[", "").replace("\\]", "")
                           for m in hostile)
