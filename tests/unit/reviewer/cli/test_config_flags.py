"""The command line's configuration flags: one name per file (``--user-config`` for your own settings,
``--repo-config`` for the repository's), the old ``--config`` still read with a note, and every default
and bound taken from the configuration model. In-process; no review is started."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.config import ReviewConfig
from reviewer.core.limits import SandboxLimits
from tests.cli_runner import flat as _flat, invoke as _invoke
from tests.conftest import EXAMPLES

SOFTMAX = str(EXAMPLES / "softmax_triton")


def test_review_reads_the_user_file_under_its_own_name_and_the_old_one_with_a_note(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.toml")
    res = _invoke("review", SOFTMAX, "--user-config", missing)
    assert res.exit_code == 2 and "nope.toml does not exist" in _flat(res.output)
    assert "deprecated" not in res.output
    res = _invoke("review", SOFTMAX, "--config", missing)
    out = _flat(res.output)
    assert res.exit_code == 2 and "nope.toml does not exist" in out
    assert "--config is deprecated, use --user-config" in out
    bad = tmp_path / "user.toml"
    bad.write_text('[llm]\nmax_probes = 99\n')  # the model's bound holds in the user's file too
    res = _invoke("review", SOFTMAX, "--user-config", str(bad))
    assert res.exit_code == 2 and "max_probes" in _flat(res.output)


def test_diff_reads_the_repository_file_under_its_own_name_and_the_old_one_with_a_note(tmp_path: Path) -> None:
    missing = str(tmp_path / "none.toml")
    res = _invoke("diff", "main", "HEAD", "--repo-config", missing)
    assert res.exit_code == 2 and "no such configuration file" in _flat(res.output)
    assert "deprecated" not in res.output
    res = _invoke("diff", "main", "HEAD", "--config", missing)
    out = _flat(res.output)
    assert res.exit_code == 2 and "--config is deprecated here, use --repo-config" in out


def test_defaults_and_bounds_shown_are_the_model_s() -> None:
    out = _flat(_invoke("review", "--help").output)
    d = ReviewConfig()
    assert f"seeds for the nominal correctness check [default: {d.seeds}]" in out
    assert f"seconds per sandboxed call [default: {d.limits.call_timeout_s}]" in out
    assert f"[x>={SandboxLimits.model_fields['memory_mb'].metadata[0].ge}]" in out
    assert "--config" not in out.replace("--user-config", "")  # the old spelling is not offered any more
    res = _invoke("review", SOFTMAX, "--timeout", "0")
    assert res.exit_code == 2 and "Invalid value for '--timeout': Input should be greater than 0" in _flat(res.output)
