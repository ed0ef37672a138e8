"""Optional extras: a missing one is one line saying what to install (exit 2), or, for a Pallas review,
unverified with that remedy; an untested JAX makes the Pallas interpreter checks unverified."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from reviewer.cli import app
from tests.conftest import EXAMPLES
from tools.engine import compat


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for m in modules:  # importlib.util.find_spec returns None for a None entry: "not installed"
        monkeypatch.setitem(sys.modules, m, None)


def test_missing_extra_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    _without(monkeypatch, "openai")
    res = CliRunner().invoke(app, ["review", str(EXAMPLES / "softmax_triton"), "--llm", "openai",
                                   "--runs-dir", str(tmp_path)], env={"COLUMNS": "300"})
    assert res.exit_code == 2, res.output
    [line] = [ln for ln in res.output.splitlines() if ln.strip()]
    assert "missing_extra" in line and "pip install 'kernel-reviewer[llm]'" in line
    assert not list(tmp_path.iterdir())  # refused before any run started
    _without(monkeypatch, "githubkit")
    res = CliRunner().invoke(app, ["pr", "publish", "--event-name", "workflow_run"], env={"COLUMNS": "300"})
    assert res.exit_code == 2 and "pip install 'kernel-reviewer[github]'" in res.output


def test_pallas_without_jax_cannot_run_and_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.engine.runsetup import DeviceInfo
    from tools.engine.backends.pallas import PallasBackend

    device = DeviceInfo(kind="cpu", name="cpu")
    assert PallasBackend().run_setup(device).can_run
    _without(monkeypatch, "jax", "jaxlib")
    setup = PallasBackend().run_setup(device)
    assert not setup.can_run and "pip install 'kernel-reviewer[pallas]'" in setup.why_not


def test_untested_jax_makes_the_interpreter_checks_unverified(monkeypatch: pytest.MonkeyPatch) -> None:
    assert compat.jax_untested("0.10.2") is None and compat.jax_untested("0.10.7") is None
    why = compat.jax_untested("0.11.0")
    assert why and "jax 0.11.0" in why and "0.10.x" in why
    assert compat.jax_untested("0.1.0") and compat.jax_untested("0.100.1")  # no prefix accidents

    from tools.engine.backends.pallas import PallasBackend

    class Ctx:
        @staticmethod
        def seeds(n, label):
            return list(range(n))

    monkeypatch.setattr(compat, "_version", lambda dist: "0.11.0")
    modes = PallasBackend().check_modes(Ctx())
    tpu = [m for m in modes if m.name == "tpu"]
    assert tpu and all(not m.available and m.required and "jax 0.11.0" in m.why_not for m in tpu)
    assert next(m for m in modes if m.name == "interpret").available  # the documented interpret=True still runs
