"""``.kreview.toml`` at the repository root: what the pull-request reviewer looks at and how.

Not to be confused with a submission's own ``kreview.toml`` manifest (reviewer/ingest): this file
configures the bot for a whole repository. Every key is optional.
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewer.config import LLMSettings, ReviewConfig
from reviewer.errors import ConfigError
from reviewer.ingest.submission import Target
from tools.sandbox.limits import SandboxLimits

REPO_CONFIG_FILE = ".kreview.toml"


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
    only_tools: list[str] | None = None
    skip_tools: list[str] = Field(default_factory=list)
    timeout_s: float = Field(120.0, gt=0)
    seeds: int = Field(3, ge=1, le=50)
    github: GitHubSettings = Field(default_factory=GitHubSettings)

    def selects(self, path: str) -> bool:
        """Whether a repository path is under ``paths`` and not under ``exclude``."""
        def hit(globs: list[str]) -> bool:
            return any(fnmatch.fnmatch(path, g) or fnmatch.fnmatch(path, g.rstrip("/") + "/*") for g in globs)

        return hit(self.paths) and not hit(self.exclude)

    def review_config(self, runs_dir: Path, repo_root: Path, *, seed: int | None = None) -> ReviewConfig:
        rubric = None
        if self.rubric:
            rubric = (repo_root / self.rubric).resolve()
            if repo_root.resolve() not in rubric.parents:
                raise ConfigError(f"{REPO_CONFIG_FILE}: rubric {self.rubric!r} is outside the repository")
        return ReviewConfig(runs_dir=runs_dir, seed=seed, rubric=rubric, correctness_seeds=self.seeds,
                            limits=SandboxLimits(call_timeout_s=self.timeout_s),
                            only_tools=self.only_tools, disabled_tools=list(self.skip_tools),
                            llm=self.llm_settings())

    def llm_settings(self) -> LLMSettings:
        return LLMSettings(provider=self.llm.provider, model=self.llm.model, base_url=self.llm.base_url)


def load_repo_config(root: Path) -> RepoConfig:
    """The repository's ``.kreview.toml`` (defaults when absent); ``ConfigError`` when invalid."""
    path = Path(root) / REPO_CONFIG_FILE
    if not path.is_file():
        return RepoConfig()
    try:
        return RepoConfig.model_validate(tomllib.loads(path.read_text()))
    except (tomllib.TOMLDecodeError, ValidationError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not a valid {REPO_CONFIG_FILE}:\n{exc}") from exc
