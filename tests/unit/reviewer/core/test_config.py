"""The one configuration loader: layers and their precedence, one name per setting (old names still read,
with a warning or a note), the format names listed once, and the narrow options the tools see."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig, ToolOptions, env_layer, load_config, merge_layers
from reviewer.core.errors import ConfigError, IngestError
from reviewer.pr.repoconfig import RepoConfig, config_from_files


def test_the_command_line_wins_over_the_repository_file_over_the_defaults() -> None:
    repo = {"seeds": 5, "skip": ["numerics"], "limits": {"call_timeout_s": 30.0}, "only": None}
    cli = {"seeds": 2, "limits": {"memory_mb": 4096}, "only": None, "rubric": None}
    cfg = load_config(cli=cli, repo=repo)
    assert (cfg.seeds, cfg.skip, cfg.only, cfg.rubric) == (2, ["numerics"], None, None)
    # a table merges key by key: the file's timeout stays beside the command line's memory limit
    assert (cfg.limits.call_timeout_s, cfg.limits.memory_mb, cfg.limits.threads) == (30.0, 4096, 2)
    assert load_config() == ReviewConfig()
    assert merge_layers({"a": {"b": 1, "c": 2}}, None, {"a": {"c": None, "d": 3}}) == {"a": {"b": 1, "c": 2, "d": 3}}


def test_old_setting_names_are_read_with_a_warning_and_unknown_ones_refused() -> None:
    with pytest.warns(DeprecationWarning, match="'correctness_seeds' is deprecated, use 'seeds'"):
        old = ReviewConfig.model_validate({"correctness_seeds": 4, "disabled_tools": ["x"], "only_tools": ["y"]})
    assert (old.seeds, old.skip, old.only) == (4, ["x"], ["y"])
    with pytest.warns(DeprecationWarning):
        assert ReviewConfig().model_copy(update={"only_tools": ["builds"]}).only == ["builds"]
    # pydantic's model_copy would set an unknown key unchecked, and the run would silently ignore it
    with pytest.raises(TypeError, match="no setting 'sedes'"):
        ReviewConfig().model_copy(update={"sedes": 1})


def test_the_repository_file_has_the_cli_s_names_and_notes_the_old_keys(tmp_path: Path) -> None:
    files = {"pyproject.toml": '[tool.kreview]\nonly_tools = ["builds"]\nskip = ["memcheck"]\ntimeout_s = 33\n'
                               'seeds = 2\n[tool.kreview.llm]\nprovider = "openai"\nmodel = "m"\n'}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the user is told by a note, not by a warning nobody sees
        cfg, notes = config_from_files(files.get)
    assert notes == ["[tool.kreview] in pyproject.toml: 'only_tools' is deprecated, use 'only'",
                     "[tool.kreview] in pyproject.toml: 'timeout_s' is deprecated, use 'timeout'"]
    review = cfg.review_config(tmp_path / "runs", tmp_path, seed=9)
    assert (review.only, review.skip, review.seeds, review.limits.call_timeout_s) == (["builds"], ["memcheck"], 2, 33.0)
    assert (review.seed, review.runs_dir, review.llm.provider, review.llm.model) == (9, tmp_path / "runs", "openai", "m")
    fresh, notes = config_from_files({".kreview.toml": 'only = ["builds"]\n'}.get)
    assert fresh.review == {"only": ["builds"]} and notes == [".kreview.toml is deprecated: move its keys under "
                                                  "[tool.kreview] in pyproject.toml"]


def test_the_format_names_are_listed_once() -> None:
    from reviewer.cli.common import FormatHint
    from reviewer.ingest import load_submission
    from tools.engine.registry import format_names

    assert format_names() == ("kernelbench", "gpumode", "manifest")
    assert [f.value for f in FormatHint] == list(format_names())
    with pytest.raises(IngestError, match="known: kernelbench, gpumode, manifest"):
        load_submission(Path(__file__).parent, "triton")


def test_tools_see_only_their_options() -> None:
    from tools.engine.tool import ToolContext

    cfg = load_config(cli={"seeds": 7, "budget": 2.0, "target_gpu": "A100", "device": "cpu",
                           "tolerance": {"atol": 1e-3}, "skip": ["numerics"], "signoff": False})
    opts = cfg.tool_options()
    assert opts == ToolOptions(seeds=7, budget=2.0, target_gpu="A100", device="cpu", tolerance={"atol": 1e-3},
                               limits=cfg.limits)
    names = {f.name for f in dataclasses.fields(ToolContext)}
    assert "options" in names and "config" not in names
    assert set(ToolOptions.model_fields) == {"seeds", "budget", "target_gpu", "tolerance", "device", "limits"}


def test_a_tool_setting_is_declared_once_with_one_range() -> None:
    """ToolOptions and ReviewConfig share the declaration: the same bound refuses the same value in both."""
    for model in (ReviewConfig, ToolOptions):
        with pytest.raises(ValueError, match="less than or equal to 50"):
            model(seeds=51)
        with pytest.raises(ValueError, match="greater than 0"):
            model(budget=0)
    assert ReviewConfig.model_fields["seeds"].metadata == ToolOptions.model_fields["seeds"].metadata


def test_both_drafters_implement_the_protocol() -> None:
    from reviewer.drafting.base import Drafter, OfflineDrafter
    from reviewer.llm import LLMDrafter, ScriptedModel

    offline, agent = OfflineDrafter(), LLMDrafter(ScriptedModel())
    assert isinstance(offline, Drafter) and isinstance(agent, Drafter)
    assert (offline.reads_source, agent.reads_source) == (False, True)


def test_each_layer_ranks_over_the_ones_below() -> None:
    """command line > repository file > environment > user's file > defaults, setting by setting."""
    user = {"timeout": 11.0, "seeds": 4, "budget": 2.0, "llm": {"model": "user", "base_url": "http://user/v1",
                                                               "max_probes": 3}}
    env = env_layer({"KREVIEW_MODEL": "env", "OPENAI_BASE_URL": "http://env/v1"})
    repo = {"timeout": 22.0, "seeds": 5, "llm": {"base_url": "http://repo/v1"}}
    cli = {"timeout": 33.0, "llm": {"model": None}}  # None: the command line leaves it unset
    cfg = load_config(cli=cli, repo=repo, env=env, user=user)
    assert cfg.limits.call_timeout_s == 33.0  # the command line
    assert cfg.seeds == 5 and cfg.llm.base_url == "http://repo/v1"  # the repository file
    assert cfg.llm.model == "env"  # the environment, over the user's file
    assert (cfg.budget, cfg.llm.max_probes) == (2.0, 3)  # the user's file, over the defaults
    assert cfg.limits.memory_mb == ReviewConfig().limits.memory_mb == 6144  # the defaults
    assert load_config(user=user).limits.call_timeout_s == 11.0
    assert env_layer({}) == {"llm": {"model": None, "base_url": None}}


def test_a_setting_has_the_command_line_s_name_in_every_layer() -> None:
    by_name = load_config(repo={"timeout": 5, "memory_mb": 4096, "target": "A100", "atol": 1e-3})
    assert (by_name.limits.call_timeout_s, by_name.limits.memory_mb, by_name.target_gpu,
            by_name.tolerance.atol) == (5.0, 4096, "A100", 1e-3)
    with pytest.raises(ValueError, match="greater than 0"):  # the model's bound, whatever the layer
        load_config(cli={"timeout": 0})
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        load_config(repo={"timout": 5})


def test_the_repository_file_keeps_only_pull_request_keys_and_checks_the_review_ones(tmp_path: Path) -> None:
    assert {"seeds", "only", "skip", "timeout", "llm", "target"}.isdisjoint(RepoConfig.model_fields)
    files = {"pyproject.toml": '[tool.kreview]\nonly = ["corectness"]\n'}
    with pytest.raises(ConfigError, match="unknown tool 'corectness'.*tools: .*correctness"):
        config_from_files(files.get)
    for bad in ("seeds = 51\n", "timeout = 0\n", "skip = [\"benchmarks\"]\n", 'target = "Z80"\n',
                '[tool.kreview.llm]\napi_key = "sk-x"\n'):
        with pytest.raises(ConfigError):
            config_from_files({"pyproject.toml": "[tool.kreview]\n" + bad}.get)
    cfg, notes = config_from_files({"pyproject.toml": '[tool.kreview]\ntarget = "h100"\n'
                                                      '[tool.kreview.default_target]\ngpu = "L4"\n'}.get)
    review = cfg.review_config(tmp_path / "runs", tmp_path)
    assert (review.target_gpu, cfg.default_target.gpu, notes) == ("H100", "L4", [])
    old, notes = config_from_files({".kreview.toml": '[target]\ngpu = "A10G"\narch = ["sm_86"]\n'}.get)
    assert (old.default_target.gpu, old.default_target.arch, old.review) == ("A10G", ["sm_86"], {})
    assert any("[target] table is deprecated, use 'default_target'" in n for n in notes)
    assert cfg.with_review(only=["builds"]).review == {"target": "H100", "only": ["builds"]}


def test_the_environment_outranks_the_user_file_for_the_llm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reviewer.llm.settings import resolve, user_layer

    user = tmp_path / "config.toml"
    user.write_text('[llm]\nmodel = "file-model"\nbase_url = "http://file/v1"\ntimeout_s = 9\napi_key = "sk-file"\n')
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("KREVIEW_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env/v1")
    layer = user_layer(user)
    assert "api_key" not in layer["llm"]  # the key never enters the configuration (the run's checkpoint)
    cfg = load_config(cli={"llm": {"provider": "openai"}}, env=env_layer(), user=layer)
    assert (cfg.llm.model, cfg.llm.base_url, cfg.llm.timeout_s) == ("env-model", "http://env/v1", 9.0)
    assert "sk-file" not in cfg.model_dump_json()
    resolved = resolve(cfg.llm)
    assert (resolved.model, resolved.base_url, resolved.api_key.get_secret_value()) == \
        ("env-model", "http://env/v1", "sk-file")
    monkeypatch.delenv("KREVIEW_MODEL")
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert resolve(load_config(env=env_layer(), user=user_layer(user)).llm).model == "file-model"
    assert resolve(load_config(cli={"llm": {"model": "flag"}}, env=env_layer(), user=layer).llm).model == "flag"
    user.write_text('[llm]\nprovider = "openai"\n')
    with pytest.raises(ConfigError, match="may not set provider"):
        user_layer(user)
