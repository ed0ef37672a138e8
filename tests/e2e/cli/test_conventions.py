"""The command line behaves like the tools users know: usage errors exit 2 before anything runs, choices
and environment variables are listed in ``--help``, every command shows examples, ``--version`` and shell
completion exist. In-process (typer's CliRunner): no review is started by any test here."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from reviewer.cli import app
from tests.cli_runner import WIDE, flat as _flat, invoke as _invoke
from tests.conftest import EXAMPLES

SOFTMAX = str(EXAMPLES / "softmax_triton")


@pytest.mark.parametrize(("args", "option"), [
    (["review", SOFTMAX, "--format-hint", "kb"], "--format-hint"),
    (["review", SOFTMAX, "--seeds", "0"], "--seeds"),
    (["review", SOFTMAX, "--seeds", "51"], "--seeds"),
    (["review", SOFTMAX, "--atol", "-1"], "--atol"),
    (["review", SOFTMAX, "--rtol", "-0.5"], "--rtol"),
    (["review", SOFTMAX, "--timeout", "0"], "--timeout"),
    (["review", SOFTMAX, "--memory-mb", "100"], "--memory-mb"),
    (["review", SOFTMAX, "--device", "tpu"], "--device"),
    (["review", SOFTMAX, "--device", "cuda:x"], "--device"),
    (["review", SOFTMAX, "--device", "cuda:"], "--device"),
    (["review", SOFTMAX, "--llm", "anthropic"], "--llm"),
    (["review", SOFTMAX, "--fail-on", "accept"], "--fail-on"),
    (["review", SOFTMAX, "--format", "yaml"], "--format"),
    (["review", SOFTMAX, "--rubric", "no-such-rubric.yaml"], "--rubric"),
    (["rerun", SOFTMAX, "--device", "tpu"], "--device"),
    (["batch", SOFTMAX, "--device", "tpu"], "--device"),
    (["compare", SOFTMAX, SOFTMAX, "--device", "tpu"], "--device"),
    (["batch", SOFTMAX, "--memory-mb", "100"], "--memory-mb"),
    (["calibrate", "eval_sets/planted", "--timeout", "-1"], "--timeout"),
    (["rerun", SOFTMAX, "--tool", "correctnes"], "--tool"),
    (["rerun", SOFTMAX, "--format-hint", "kb"], "--format-hint"),
    (["calibrate", "eval_sets/planted", "--workers", "0"], "--workers"),
    (["calibrate", "eval_sets/planted", "--baseline", "kernelbook"], "--baseline"),
    (["diff", "main", "HEAD", "--max-comments", "-1"], "--max-comments"),
    (["runs", "--status", "bogus"], "--status"),
    (["runs", "--format", "sarif"], "--format"),
])
def test_bad_option_values_are_usage_errors(args: list[str], option: str) -> None:
    res = _invoke(*args)
    assert res.exit_code == 2, res.output
    out = _flat(res.output)
    assert f"Invalid value for '{option}'" in out or f"Invalid value for {option}" in out, out
    assert "Traceback" not in res.output
    # one error style, in our words: no boxed panel, no validation-library wording or help links
    assert out.startswith("error (") and "╭" not in res.output, out
    assert "Value error," not in out and "pydantic" not in out and "[type=" not in out, out


def test_a_gpu_the_machine_lacks_is_a_usage_error_before_anything_runs() -> None:
    from reviewer.core.errors import UsageError
    from reviewer.device import detect_device

    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    for wanted in ("cuda", "cuda:1"):
        with pytest.raises(UsageError, match=f"--device {wanted} was asked for"):
            detect_device(wanted)
    assert detect_device("cpu").kind == "cpu" and detect_device("auto").kind == "cpu"


@pytest.mark.parametrize("command", ["review", "calibrate", "diff", "batch", "compare"])
def test_unknown_tool_names_are_usage_errors(command: str) -> None:
    target = {"review": [SOFTMAX], "calibrate": ["eval_sets/planted"], "diff": ["main", "HEAD"],
              "batch": [SOFTMAX], "compare": [SOFTMAX, SOFTMAX]}[command]
    res = _invoke(command, *target, "--only", "correctnes")
    assert res.exit_code == 2, res.output
    out = _flat(res.output)
    assert "unknown tool 'correctnes'" in out and "did you mean 'correctness'" in out
    assert "integrity_static" in out  # the known names are listed
    if command in ("review", "batch", "compare"):
        res = _invoke(command, *target, "--skip", "benchmarks")
        assert res.exit_code == 2 and "did you mean 'benchmark'" in _flat(res.output)


def test_help_lists_choices_and_environment_notes() -> None:
    out = _flat(_invoke("review", "--help").output)
    for choices in ("auto|cpu|cuda", "kernelbench|gpumode|manifest", "none|openai", "text|json|markdown",
                    "never|reject|needs_human", "1<=x<=50"):
        assert choices in out, choices
    for env in ("KREVIEW_RUNS_DIR", "KREVIEW_MODEL", "KREVIEW_CONFIG"):
        assert f"[env var: {env}]" in out, env
    assert "[llm] table" in out  # square brackets in help text are not eaten as markup
    out = _flat(_invoke("pr", "publish", "--help").output)
    for env in ("GITHUB_EVENT_PATH", "GITHUB_EVENT_NAME", "GITHUB_API_URL", "GITHUB_REPOSITORY"):
        assert f"[env {env}]" in out, env


def _commands(group, prefix=()):
    import typer.main

    click_group = typer.main.get_command(app) if group is None else group
    for name, cmd in click_group.commands.items():
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, (*prefix, name))
        else:
            yield (*prefix, name)


def test_every_command_shows_examples() -> None:
    commands = list(_commands(None))
    assert {("review",), ("signoff",), ("show",), ("rerun",), ("probe",), ("calibrate",), ("diff",), ("pr", "review"),
            ("pr", "publish")} <= set(commands)
    for cmd in commands:
        out = _invoke(*cmd, "--help").output
        assert "Examples" in out and f"kreview {' '.join(cmd)}" in out, cmd


def test_version_and_completion(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import version

    import shellingham

    res = _invoke("--version")
    assert res.exit_code == 0 and res.output.strip() == f"kreview {version('kernel-reviewer')}"
    # typer finds the shell in the process tree (shellingham), which an xdist worker's tree may not hold
    # (exit 1 in the full suite, never alone): the user's shell, as detected in a terminal, is given
    monkeypatch.setattr(shellingham, "detect_shell", lambda *a, **k: ("bash", "/bin/bash"))
    res = CliRunner().invoke(app, ["--show-completion"], prog_name="kreview", env=WIDE)
    assert res.exit_code == 0 and "complete" in res.output and "kreview" in res.output, (res.output, res.exception)


def test_a_broken_plugin_is_named_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed tool naming a framework no backend runs breaks the registry: the option check says
    which tool and why (exit 2), instead of a traceback from inside the option callback."""
    import tools.engine.registry as registry
    from reviewer.core.errors import ToolError

    def broken() -> dict:
        raise ToolError("tool 'toyinfo' names frameworks no backend is registered for: toyfx")

    monkeypatch.setattr(registry, "tools", broken)
    res = _invoke("rerun", SOFTMAX, "--tool", "toyinfo")
    assert res.exit_code == 2 and "toyfx" in _flat(res.output) and "Traceback" not in res.output


def test_rerun_refuses_a_tool_naming_an_unknown_criterion_as_review_does(monkeypatch: pytest.MonkeyPatch) -> None:
    import tools.engine.registry as registry
    from tools.engine.tool import Tool

    class _Elegance(Tool):
        name = "toybad"
        criteria = ("elegance",)

        def run(self, ctx) -> None:  # type: ignore[no-untyped-def]
            ctx.add_evidence(self, outcome="info", summary="elegant")

    real = registry.tools()
    monkeypatch.setattr(registry, "tools", lambda: {**real, "toybad": _Elegance})
    res = _invoke("rerun", SOFTMAX, "--tool", "toybad")
    out = _flat(res.output)
    assert res.exit_code == 2 and "toybad" in out and "elegance" in out and "elegant" not in out.replace("elegance", "")
