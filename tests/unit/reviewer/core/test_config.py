"""The one configuration loader: layers and their precedence, one name per setting (old names still read,
with a warning or a note), the format names listed once, and the narrow options the tools see."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import pytest

from reviewer.core.config import FORMATS, ReviewConfig, ToolOptions, load_config, merge_layers
from reviewer.core.errors import IngestError
from reviewer.pr.repoconfig import config_from_files


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
    assert fresh.only == ["builds"] and notes == [".kreview.toml is deprecated: move its keys under "
                                                  "[tool.kreview] in pyproject.toml"]


def test_the_format_names_are_listed_once() -> None:
    from reviewer.cli.common import FormatHint
    from reviewer.core.models import Format
    from reviewer.ingest import load_submission
    from typing import get_args

    assert FORMATS == get_args(Format) == ("kernelbench", "gpumode", "manifest")
    assert [f.value for f in FormatHint] == list(FORMATS)
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
