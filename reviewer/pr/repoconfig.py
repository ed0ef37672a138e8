"""The repository's configuration: ``[tool.kreview]`` in ``pyproject.toml`` at the repository root.

What the pull-request reviewer looks at and how. Not to be confused with a submission's own
``kreview.toml`` manifest (reviewer/ingest), which describes one submission directory. The old
repository file ``.kreview.toml`` (the same keys at top level) is still read, with a deprecation note,
when ``pyproject.toml`` has no ``[tool.kreview]`` table. Every key is optional.

Two kinds of keys. The settings a review shares with ``kreview review`` (``REVIEW_KEYS``: ``only``,
``skip``, ``seeds``, ``timeout``, ``budget``, ``target``, ``rubric``, ``llm``) have its option names and
its defaults and bounds: they are kept as given, as the "repository" layer of reviewer/core/config.py's
``load_config``, and checked there when the file is read (a tool name must be a registered tool). The
rest (``RepoConfig``) only the pull-request reviewer reads. Old keys still read, with a deprecation
note: ``only_tools``, ``skip_tools``, ``timeout_s``, and a ``target`` table (the GPU for submissions that
name none: ``default_target`` now, since ``target`` is ``--target``, the GPU every review targets).
"""

from __future__ import annotations

import fnmatch
import tomllib
import warnings
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from reviewer.core.config import ReviewConfig, load_config, renamed
from reviewer.core.errors import ConfigError
from reviewer.core.submission import Target

PYPROJECT = "pyproject.toml"
LEGACY_CONFIG_FILE = ".kreview.toml"
REPO_CONFIG_FILE = "[tool.kreview] in pyproject.toml"  # how messages name the configuration
RENAMED_KEYS = {"only_tools": "only", "skip_tools": "skip", "timeout_s": "timeout"}
"""Old keys of the repository configuration and their names now (the ``kreview review`` options')."""
REVIEW_KEYS = ("only", "skip", "seeds", "timeout", "budget", "target", "rubric", "llm")
"""The keys that are settings of each review (``kreview review``'s options), not of the bot."""
LLM_KEYS = ("provider", "model", "base_url")
"""What the repository file may say of the model: the review job runs without secrets, so never a key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GitHubSettings(_Strict):
    api_url: str | None = Field(None, description="REST API base URL; GitHub Enterprise: https://HOST/api/v3")
    bot_login: str = Field("github-actions[bot]", description="the account the bot posts as (trusted author)")
    review_workflow: str = Field("kreview-review.yml", description="file name of the unprivileged review workflow")
    artifact: str = Field("kreview-review", description="artifact name the review workflow uploads")


class RepoConfig(_Strict):
    paths: list[str] = Field(default_factory=lambda: ["**"], description="globs of files/directories to review")
    exclude: list[str] = Field(default_factory=list)
    max_comments: int = Field(10, ge=0, le=50)
    default_target: Target = Field(default_factory=Target, description="GPU target for submissions that name none")
    review_old: bool = Field(True, description="also review the base version to report regressions")
    fixes: bool = Field(False, description="on a rejected target, try rule-based patches, verified by a sandbox "
                        "rerun, and post them as suggestions (docs/fixes.md)")
    github: GitHubSettings = Field(default_factory=GitHubSettings)
    review: dict[str, Any] = Field(default_factory=dict, description="the review settings (REVIEW_KEYS) as given")

    @model_validator(mode="before")
    @classmethod
    def _split(cls, data: object) -> object:
        """Old keys renamed; the review settings moved under ``review``, checked as ``load_config`` reads
        them (defaults and bounds are ``ReviewConfig``'s, tool names the registry's)."""
        data = renamed(data, RENAMED_KEYS, "repository configuration")
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if isinstance(data.get("target"), dict):  # the old table: the GPU for submissions that name none
            data.setdefault("default_target", data.pop("target"))
        review = {k: data.pop(k) for k in REVIEW_KEYS if k in data}
        if "review" in data:
            raise ValueError("'review' is not a key of the file: write its settings at top level")
        llm = review.get("llm")
        if llm is not None and (not isinstance(llm, dict) or set(llm) - set(LLM_KEYS)):
            raise ValueError(f"llm may set only {', '.join(LLM_KEYS)} (the review job has no secrets)")
        load_config(repo={k: v for k, v in review.items() if k != "rubric"})
        if isinstance(review.get("target"), str):  # as --target: a GPU of the virtual-device table, by its key
            review["target"] = known_gpu(review["target"])
        if review.get("rubric") is not None and not isinstance(review["rubric"], str):
            raise ValueError("rubric must be a path relative to the repository root")
        from tools.engine.plugin_names import registered_names

        known = registered_names()  # a typo (``only = ["corectness"]``) would otherwise run nothing
        unknown = [n for n in [*(review.get("only") or []), *(review.get("skip") or [])] if n not in known]
        if unknown:
            raise ValueError(f"unknown tool {', '.join(map(repr, unknown))}; tools: {', '.join(known)}")
        return data | {"review": review}

    def selects(self, path: str) -> bool:
        """Whether a repository path is under ``paths`` and not under ``exclude``."""
        def hit(globs: list[str]) -> bool:
            return any(fnmatch.fnmatch(path, g) or fnmatch.fnmatch(path, g.rstrip("/") + "/*") for g in globs)

        return hit(self.paths) and not hit(self.exclude)

    def review_layer(self, repo_root: Path) -> dict[str, object]:
        """What this file sets of a review's configuration (the repository layer of ``load_config``), the
        rubric resolved against the repository root."""
        layer = dict(self.review)
        if layer.get("rubric"):
            rubric = (repo_root / layer["rubric"]).resolve()
            if repo_root.resolve() not in rubric.parents:
                raise ConfigError(f"{REPO_CONFIG_FILE}: rubric {layer['rubric']!r} is outside the repository")
            layer["rubric"] = rubric
        return layer

    def review_config(self, runs_dir: Path, repo_root: Path, *, seed: int | None = None,
                      cli: dict[str, Any] | None = None) -> ReviewConfig:
        """The review's configuration: ``cli`` over this file over the environment and the defaults."""
        from reviewer.core.config import env_layer

        return load_config(cli={"runs_dir": runs_dir, "seed": seed} | (cli or {}),
                           repo=self.review_layer(repo_root), env=env_layer())

    def with_review(self, **settings: Any) -> RepoConfig:
        """This configuration with review settings replaced (a command line's ``--only``)."""
        return RepoConfig.model_validate(self.model_dump(exclude={"review"}) | self.review | settings)


def known_gpu(name: str) -> str:
    """A GPU name as ``--target`` and the file's ``target`` take it: its key in the virtual-device table
    (``ValueError`` listing the known ones otherwise)."""
    from tools.engine.harness.virtual_gpu import known_gpus, spec_for

    spec = spec_for(name)
    if "is not in the table" in spec["chosen_by"]:
        raise ValueError(f"target {name!r} is not a GPU the reviewer knows; choose one of {', '.join(known_gpus())}")
    return spec["key"]


def _validate(table: object, where: str, notes: list[str] | None = None) -> RepoConfig:
    if notes is not None and isinstance(table, dict):
        notes += [f"{where}: {old!r} is deprecated, use {new!r}" for old, new in RENAMED_KEYS.items() if old in table]
        if isinstance(table.get("target"), dict):
            notes.append(f"{where}: a [target] table is deprecated, use 'default_target' (the GPU for submissions "
                         "that name none; 'target = \"H100\"' is --target, the GPU every review targets)")
    try:
        with warnings.catch_warnings():  # the notes above say it to the user
            warnings.simplefilter("ignore", DeprecationWarning)
            return RepoConfig.model_validate(table)
    except ValidationError as exc:
        raise ConfigError(f"{where} is not a valid kreview configuration:\n{exc}") from exc


def _table(text: str, name: str, where: str) -> dict | None:
    """The configuration in a file's text: ``[tool.kreview]`` of a ``pyproject.toml`` (None when it has
    none), else the whole file (a ``.kreview.toml``)."""
    data = _toml(text, where)
    if name == PYPROJECT:
        return data.get("tool", {}).get("kreview")
    return data


def _toml(text: str, where: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where} is not valid TOML: {exc}") from exc


def config_from_files(read: Callable[[str], str | None], where: str = "") -> tuple[RepoConfig, list[str]]:
    """The configuration from a repository's files (``read(name)`` gives a root file's text or None),
    and notes for the user: ``[tool.kreview]`` in ``pyproject.toml`` first, else ``.kreview.toml``
    (deprecated), else the defaults."""
    at = f" at {where}" if where else ""
    notes: list[str] = []
    legacy = read(LEGACY_CONFIG_FILE)
    pyproject = read(PYPROJECT)
    if pyproject is not None:
        table = _table(pyproject, PYPROJECT, f"{PYPROJECT}{at}")
        if table is not None:
            if legacy is not None:
                notes.append(f"{LEGACY_CONFIG_FILE}{at} is ignored: [tool.kreview] in {PYPROJECT} is the configuration")
            return _validate(table, f"[tool.kreview] in {PYPROJECT}{at}", notes), notes
    if legacy is not None:
        notes.append(f"{LEGACY_CONFIG_FILE}{at} is deprecated: move its keys under [tool.kreview] in {PYPROJECT}")
        table = _table(legacy, LEGACY_CONFIG_FILE, f"{LEGACY_CONFIG_FILE}{at}")
        return _validate(table, f"{LEGACY_CONFIG_FILE}{at}", notes), notes
    return RepoConfig(), notes


def _read_in(root: Path) -> Callable[[str], str | None]:
    def read(name: str) -> str | None:
        path = Path(root) / name
        if not path.is_file():
            return None
        try:
            return path.read_text()
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path} is not UTF-8 text: {exc}") from exc

    return read


def load_repo_config(root: Path, notes: list[str] | None = None) -> RepoConfig:
    """The configuration of the repository checked out at ``root`` (defaults when it has none);
    ``ConfigError`` when invalid. Deprecation notes are appended to ``notes``."""
    cfg, said = config_from_files(_read_in(root))
    if notes is not None:
        notes.extend(said)
    return cfg


def load_config_file(path: Path, notes: list[str] | None = None) -> RepoConfig:
    """A configuration named on the command line: a ``pyproject.toml`` (its ``[tool.kreview]`` table) or a
    ``.kreview.toml``-style file (keys at top level, deprecated)."""
    path = Path(path)
    text = _read_in(path.parent)(path.name)
    if text is None:
        raise ConfigError(f"{path}: no such configuration file")
    table = _table(text, path.name, str(path))
    if table is None:
        raise ConfigError(f"{path} has no [tool.kreview] table")
    if notes is not None and path.name == LEGACY_CONFIG_FILE:
        notes.append(f"{path} is deprecated: move its keys under [tool.kreview] in {PYPROJECT}")
    return _validate(table, f"[tool.kreview] in {path}" if path.name == PYPROJECT else str(path), notes)
