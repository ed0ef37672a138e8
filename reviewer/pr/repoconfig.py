"""The repository's configuration: ``[tool.kreview]`` in ``pyproject.toml`` at the repository root.

What the pull-request reviewer looks at and how. Not to be confused with a submission's own
``kreview.toml`` manifest (reviewer/ingest), which describes one submission directory. The old
repository file ``.kreview.toml`` (the same keys at top level) is still read, with a deprecation note,
when ``pyproject.toml`` has no ``[tool.kreview]`` table. Every key is optional. The settings a review
shares with ``kreview review`` have its option names (``only``, ``skip``, ``seeds``, ``timeout``); the
old keys ``only_tools``, ``skip_tools`` and ``timeout_s`` are still read, with a deprecation note. The
file is the "repository" layer of reviewer/core/config.py's ``load_config``.
"""

from __future__ import annotations

import fnmatch
import tomllib
import warnings
from pathlib import Path
from typing import Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from reviewer.core.config import LLMSettings, ReviewConfig, load_config, renamed
from reviewer.core.errors import ConfigError
from reviewer.core.submission import Target

PYPROJECT = "pyproject.toml"
LEGACY_CONFIG_FILE = ".kreview.toml"
REPO_CONFIG_FILE = "[tool.kreview] in pyproject.toml"  # how messages name the configuration
RENAMED_KEYS = {"only_tools": "only", "skip_tools": "skip", "timeout_s": "timeout"}
"""Old keys of the repository configuration and their names now (the ``kreview review`` options')."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMEndpoint(_Strict):
    """The drafter's endpoint. The review job runs without secrets, so it must not need a key."""

    provider: Literal["none", "openai"] = "none"
    base_url: str | None = None
    model: str | None = None


class GitHubSettings(_Strict):
    api_url: str | None = Field(None, description="REST API base URL; GitHub Enterprise: https://HOST/api/v3")
    bot_login: str = Field("github-actions[bot]", description="the account the bot posts as (trusted author)")
    review_workflow: str = Field("kreview-review.yml", description="file name of the unprivileged review workflow")
    artifact: str = Field("kreview-review", description="artifact name the review workflow uploads")


class RepoConfig(_Strict):
    paths: list[str] = Field(default_factory=lambda: ["**"], description="globs of files/directories to review")
    exclude: list[str] = Field(default_factory=list)
    rubric: str | None = Field(None, description="rubric YAML, relative to the repository root")
    llm: LLMEndpoint = Field(default_factory=LLMEndpoint)
    max_comments: int = Field(10, ge=0, le=50)
    target: Target = Field(default_factory=Target, description="GPU target for submissions that name none")
    review_old: bool = Field(True, description="also review the base version to report regressions")
    only: list[str] | None = Field(None, description="run only these tools (--only); omit for every tool")
    skip: list[str] = Field(default_factory=list, description="tools not to run (--skip)")
    timeout: float = Field(120.0, gt=0, description="seconds per sandboxed call (--timeout)")
    seeds: int = Field(3, ge=1, le=50, description="seeds of the nominal correctness check (--seeds)")
    github: GitHubSettings = Field(default_factory=GitHubSettings)

    @model_validator(mode="before")
    @classmethod
    def _old_keys(cls, data: object) -> object:
        return renamed(data, RENAMED_KEYS, "repository configuration")

    def selects(self, path: str) -> bool:
        """Whether a repository path is under ``paths`` and not under ``exclude``."""
        def hit(globs: list[str]) -> bool:
            return any(fnmatch.fnmatch(path, g) or fnmatch.fnmatch(path, g.rstrip("/") + "/*") for g in globs)

        return hit(self.paths) and not hit(self.exclude)

    def review_layer(self, repo_root: Path) -> dict[str, object]:
        """What this file sets of a review's configuration (the repository layer of ``load_config``)."""
        rubric = None
        if self.rubric:
            rubric = (repo_root / self.rubric).resolve()
            if repo_root.resolve() not in rubric.parents:
                raise ConfigError(f"{REPO_CONFIG_FILE}: rubric {self.rubric!r} is outside the repository")
        return {"rubric": rubric, "seeds": self.seeds, "limits": {"call_timeout_s": self.timeout},
                "only": self.only, "skip": list(self.skip), "llm": self.llm.model_dump()}

    def review_config(self, runs_dir: Path, repo_root: Path, *, seed: int | None = None) -> ReviewConfig:
        return load_config(cli={"runs_dir": runs_dir, "seed": seed}, repo=self.review_layer(repo_root))

    def llm_settings(self) -> LLMSettings:
        return LLMSettings(provider=self.llm.provider, model=self.llm.model, base_url=self.llm.base_url)


def _validate(table: object, where: str, notes: list[str] | None = None) -> RepoConfig:
    if notes is not None and isinstance(table, dict):
        notes += [f"{where}: {old!r} is deprecated, use {new!r}" for old, new in RENAMED_KEYS.items() if old in table]
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
