"""Submission formats are plugins: the three built-ins come from the registry (entry points, or the
built-in list when the installed metadata predates the group), an unknown format is refused at load,
and a fourth format (tests/formats/single_file.py) is one class plus its registration: it is read,
sniffed, and reviewed without any other file knowing its name."""

from __future__ import annotations

import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.core.errors import IngestError, ManifestError
from reviewer.ingest import load_submission, looked_for
from tests.formats.single_file import SingleFileFormat
from tools.engine import registry
from tools.engine.formats import BUILTIN_FORMATS, FORMATS_GROUP, format_names, format_of

ROOT = Path(__file__).resolve().parents[4]

GOOD = '''
import torch

CASES = [{"n": 1000}, {"n": 4097}]

def make_inputs(seed, n=256):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(n, generator=g), torch.randn(n, generator=g)]

def reference(x, y):
    return x * y + x

def kernel(x, y):
    return torch.addcmul(x, x, y)
'''
# one defect: the last element is never computed (an off-by-one bound)
BAD = GOOD.replace("    return torch.addcmul(x, x, y)\n",
                   "    out = torch.addcmul(x, x, y)\n    out[-1] = 0.0\n    return out\n")


@pytest.fixture
def single_file() -> Iterator[SingleFileFormat]:
    fmt = registry.register_format(SingleFileFormat())
    try:
        yield fmt
    finally:
        registry.unregister_format(fmt.name)


def _write(tmp_path: Path, source: str, name: str = "task") -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "kernel.py").write_text(textwrap.dedent(source))
    return d


def test_the_built_in_formats_are_the_entry_points_pyproject_declares() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][FORMATS_GROUP]
    assert declared == BUILTIN_FORMATS
    assert format_names() == ("kernelbench", "gpumode", "manifest")
    assert all(format_of(n).name == n for n in format_names())


def test_a_fourth_format_is_read_by_sniffing_and_by_name(tmp_path: Path, single_file: SingleFileFormat) -> None:
    d = _write(tmp_path, GOOD)
    sub = load_submission(d)
    assert (sub.format, sub.framework) == ("single_file", "torch")
    assert sub.reference_file == sub.submission_file == "kernel.py"
    assert [c.params for c in sub.nominal_cases] == [{"n": 1000}, {"n": 4097}]
    assert load_submission(d, "single_file").nominal_cases == sub.nominal_cases
    spec = format_of(sub).load_request(sub, "reference", Path("/src"))
    assert spec["format"] == "manifest" and spec["spec"]["reference_entry"] == "reference"
    assert "single-file: one .py defining make_inputs" in looked_for()
    # the engine asks the format, so sizes and the contract follow the format's defaults (a generator task)
    assert format_of(sub).probe_base(sub, {"n"}) == ({"n": 1000}, {"n": 1000})
    assert format_of(sub).generator == "input generator"


def test_without_its_registration_the_format_is_unknown(tmp_path: Path) -> None:
    d = _write(tmp_path, GOOD)
    with pytest.raises(IngestError, match="cannot be read. Looked for") as exc:
        load_submission(d)
    assert "single-file" not in str(exc.value)
    with pytest.raises(IngestError, match="unknown format 'single_file'; known: kernelbench, gpumode, manifest"):
        load_submission(d, "single_file")


def test_an_unknown_format_named_by_the_manifest_is_refused_at_load(tmp_path: Path) -> None:
    d = _write(tmp_path, GOOD)
    (d / "kreview.toml").write_text('format = "single_fil"\n')
    with pytest.raises(ManifestError, match="'single_fil' is not a registered submission format") as exc:
        load_submission(d)
    assert exc.value.exit_code == 2


def test_a_format_registered_under_another_name_is_refused() -> None:
    with pytest.raises(Exception, match="loads a format named 'single_file'"):
        registry.register_format(SingleFileFormat(), "other", table={})


@pytest.mark.slow
@pytest.mark.parametrize("source, verdict", [(GOOD, "pass"), (BAD, "fail")], ids=["good", "off_by_one"])
def test_a_submission_in_the_fourth_format_is_reviewed(tmp_path: Path, config: ReviewConfig, single_file: SingleFileFormat,
                                                       source: str, verdict: str) -> None:
    from reviewer.api import start_review

    review = start_review(_write(tmp_path, source), config.model_copy(
        update={"only": ["builds", "correctness"], "device": "cpu", "seeds": 1}))
    c = review.criterion("correctness")
    assert c.verdict == verdict, c.summary
    ran = [e for e in review.evidence if e.tool == "correctness"]
    # both CASES ran, through the manifest format's child programs the format reuses
    assert {e.inputs["case"]["params"].get("n") for e in ran if "case" in e.inputs} == {1000, 4097}
