"""Reading submissions: each format, forced formats, and directories that are not submissions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reviewer.core.errors import IngestError, ManifestError
from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES


def test_kernelbench_example_is_detected_with_framework_and_constants() -> None:
    sub = load_submission(EXAMPLES / "softmax_triton")
    assert (sub.format, sub.framework) == ("kernelbench", "triton")
    assert (sub.reference_file, sub.submission_file) == ("reference.py", "submission.py")
    assert sub.size_constants == {"batch_size": 64, "dim": 1000}
    assert sub.syntax_error is None


def test_gpumode_example_reads_tests_benchmarks_and_task_tolerance() -> None:
    sub = load_submission(EXAMPLES / "gpumode_vectoradd")
    assert sub.format == "gpumode"
    assert [c.params for c in sub.nominal_cases][:2] == [{"size": 127, "seed": 4242}, {"size": 128, "seed": 5236}]
    assert len(sub.benchmarks) == 2
    assert (sub.tolerance.atol, sub.tolerance.rtol) == (1e-3, 1e-3)
    assert "make_match_reference" in sub.tolerance_source


def _manifest_dir(tmp_path: Path, toml: str) -> Path:
    d = tmp_path / "m"
    d.mkdir(parents=True)
    (d / "ref.py").write_text(
        "import torch\n"
        "def make(seed, n=64):\n    g = torch.Generator().manual_seed(seed)\n    return [torch.randn(n, generator=g)]\n"
        "def ref(x):\n    return torch.relu(x)\n")
    (d / "kern.py").write_text("import torch\ndef relu(x):\n    return x.clamp_min(0)\n")
    (d / "kreview.toml").write_text(toml)
    return d


def test_manifest_function_style(tmp_path: Path) -> None:
    d = _manifest_dir(tmp_path, """
name = "relu"
[submission]
file = "kern.py"
entry = "relu"
[reference]
file = "ref.py"
entry = "ref"
inputs = "make"
[[cases]]
params = { n = 100 }
[tolerance]
atol = 1e-6
[claims]
speedup = 2.0
[target]
gpu = "H100"
""")
    sub = load_submission(d)
    assert (sub.format, sub.name, sub.entries["inputs"]) == ("manifest", "relu", "make")
    assert sub.nominal_cases[0].params == {"n": 100}
    assert (sub.tolerance.atol, sub.claims.speedup, sub.target.gpu) == (1e-6, 2.0, "H100")


def test_manifest_beside_kernelbench_adds_facts_only(tmp_path: Path) -> None:
    d = tmp_path / "kb"
    shutil.copytree(EXAMPLES / "softmax_triton", d)
    (d / "kreview.toml").write_text('[claims]\nspeedup = 3.5\n[target]\ngpu = "H200"\n')
    sub = load_submission(d)
    assert sub.format == "kernelbench"
    assert (sub.claims.speedup, sub.target.gpu, sub.manifest_file) == (3.5, "H200", "kreview.toml")


def test_invalid_manifest_is_a_clear_error(tmp_path: Path) -> None:
    d = _manifest_dir(tmp_path, '[submission]\nfile = "kern.py"\nentry = "relu"\nbogus = 1\n')
    with pytest.raises(ManifestError) as exc:
        load_submission(d)
    assert exc.value.status == "bad_manifest"
    assert "bogus" in str(exc.value)


_FUNCTION_STYLE = """
framework = "{framework}"
[submission]
file = "kern.py"
entry = "relu"
[reference]
file = "ref.py"
entry = "ref"
inputs = "make"
"""


def test_a_manifest_framework_is_one_the_registry_knows(tmp_path: Path) -> None:
    """The framework list is the registered backends (plus unknown), not a list kept in the core."""
    sub = load_submission(_manifest_dir(tmp_path / "ok", _FUNCTION_STYLE.format(framework="torch")))
    assert sub.framework == "torch"
    with pytest.raises(ManifestError) as exc:
        load_submission(_manifest_dir(tmp_path / "bad", _FUNCTION_STYLE.format(framework="mlx")))
    assert "'mlx' is not a registered backend" in str(exc.value) and "'triton'" in str(exc.value)


@pytest.mark.parametrize("setup", ["empty", "file", "missing", "only_reference", "random_py"])
def test_directories_that_are_not_submissions_name_what_was_looked_for(tmp_path: Path, setup: str) -> None:
    d = tmp_path / "x"
    if setup != "missing":
        d.mkdir()
    if setup == "file":
        d = d / "reference.py"
        d.write_text("x = 1\n")
    if setup == "only_reference":
        shutil.copy(EXAMPLES / "softmax_triton" / "reference.py", d / "reference.py")
    if setup == "random_py":
        (d / "a.py").write_text("print('hello')\n")
    with pytest.raises(IngestError) as exc:
        load_submission(d)
    assert exc.value.status == "not_a_submission"
    if setup in ("empty", "random_py", "file"):
        assert "ModelNew" in str(exc.value) and "custom_kernel" in str(exc.value) and "kreview.toml" in str(exc.value)
    if setup == "only_reference":
        assert "submission.py" in str(exc.value)


def test_format_hint_forces_and_rejects(tmp_path: Path) -> None:
    with pytest.raises(IngestError):
        load_submission(EXAMPLES / "softmax_triton", "gpumode")
    with pytest.raises(IngestError):
        load_submission(EXAMPLES / "softmax_triton", "nonsense")
    assert load_submission(EXAMPLES / "softmax_triton", "kernelbench").format == "kernelbench"


def test_syntax_error_is_recorded_not_raised(tmp_path: Path) -> None:
    d = tmp_path / "s"
    shutil.copytree(EXAMPLES / "softmax_triton", d)
    (d / "submission.py").write_text("class ModelNew(:\n    pass\n")
    sub = load_submission(d)
    assert sub.syntax_error is not None and sub.syntax_error["line"] == 1


def test_gpumode_without_cases_is_an_error(tmp_path: Path) -> None:
    d = tmp_path / "g"
    shutil.copytree(EXAMPLES / "gpumode_vectoradd", d)
    (d / "task.yml").unlink()
    with pytest.raises(IngestError) as exc:
        load_submission(d)
    assert "tests:" in str(exc.value)


def test_port_manifest_reads_its_original_one_level(tmp_path: Path) -> None:
    orig = tmp_path / "cuda_original"
    shutil.copytree(EXAMPLES / "softmax_triton", orig)
    (orig / "kreview.toml").write_text('[port]\noriginal = "../port"\n')  # an original's own [port] is not followed
    port = tmp_path / "port"
    shutil.copytree(EXAMPLES / "softmax_triton", port)
    (port / "kreview.toml").write_text('[port]\noriginal = "../cuda_original"\n')
    sub = load_submission(port)
    assert sub.original is not None and sub.original.root == str(orig.resolve())
    assert sub.original.original is None and sub.original.framework == "triton"
    assert load_submission(orig, follow_port=False).original is None


@pytest.mark.parametrize("original", ["../missing", ".", ".."])
def test_port_original_must_be_another_readable_directory(tmp_path: Path, original: str) -> None:
    port = tmp_path / "port"
    shutil.copytree(EXAMPLES / "softmax_triton", port)
    (port / "kreview.toml").write_text(f'[port]\noriginal = "{original}"\n')
    with pytest.raises(ManifestError, match=r"\[port\] original"):
        load_submission(port)


def test_a_backends_source_files_mark_its_framework_and_are_listed(tmp_path: Path) -> None:
    # CUDA's .cu/.cuh files are the CUDA backend's (Backend.marker_suffixes, source_suffixes), not ingest's
    shutil.copytree(EXAMPLES / "softmax_triton", tmp_path / "s", ignore=shutil.ignore_patterns(".kreview"))
    assert load_submission(tmp_path / "s").framework == "triton"
    (tmp_path / "s" / "kernel.cu").write_text("// no markers in the text\n")
    (tmp_path / "s" / "notes.txt").write_text("__global__\n")
    sub = load_submission(tmp_path / "s")
    assert (sub.framework, sub.frameworks_seen) == ("cuda", ["cuda", "torch", "triton"])
    assert "kernel.cu" in sub.source_files and "notes.txt" not in sub.source_files
