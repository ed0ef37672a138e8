"""``.kreview.toml``, the bot's command-line guards, GitHub errors, the default target."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from reviewer.cli import app
from reviewer.core.errors import ConfigError, GitHubError
from reviewer.ingest import load_submission
from reviewer.pr.diffreview import _with_target
from reviewer.pr.github import GitHubProvider, api_url
from reviewer.pr.repoconfig import RepoConfig, load_repo_config
from tests.kernelfiles import KERNELS, materialize
from tests.e2e.pr.fakegithub import BASE

DOCS = Path(__file__).resolve().parents[3] / "docs" / "pull-requests.md"


def test_documented_config_validates() -> None:
    [block] = re.findall(r"```toml\n(.*?)```", DOCS.read_text(), re.DOTALL)
    cfg = RepoConfig.model_validate(tomllib.loads(block)["tool"]["kreview"])
    assert (cfg.max_comments, cfg.default_target.arch, cfg.github.api_url) == (10, ["sm_90"],
                                                                              "https://github.example.com/api/v3")
    assert cfg.selects("kernels/relu/submission.py") and not cfg.selects("kernels/legacy/x/submission.py")
    assert not cfg.selects("docs/index.md")


def test_bad_config_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / ".kreview.toml").write_text("max_comment = 3\n")  # misspelt key
    with pytest.raises(ConfigError) as info:
        load_repo_config(tmp_path)
    assert info.value.status == "bad_config"
    assert load_repo_config(tmp_path / "absent") == RepoConfig()
    outside = RepoConfig(rubric="../elsewhere.yaml")
    with pytest.raises(ConfigError):
        outside.review_config(tmp_path / "runs", tmp_path)


def test_default_target_reaches_a_submission_without_manifest(tmp_path: Path) -> None:
    sub = materialize(KERNELS / "spine" / "good_triton.py", tmp_path / "sub")
    _with_target(sub, RepoConfig.model_validate({"default_target": {"gpu": "H100", "arch": ["sm_90"]}}))
    got = load_submission(sub)
    assert (got.target.gpu, got.target.arch) == ("H100", ["sm_90"])


def test_cli_guards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"repository": {"full_name": "acme/kernels"}}))
    runner = CliRunner()
    res = runner.invoke(app, ["pr", "review", "--event", str(event), "--event-name", "pull_request_target"])
    assert res.exit_code == 2 and "write token" in res.output
    res = runner.invoke(app, ["pr", "publish", "--event", str(event), "--event-name", "workflow_run"])
    assert res.exit_code == 2 and "GITHUB_TOKEN" in res.output
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    res = runner.invoke(app, ["pr", "publish", "--event", str(event), "--event-name", "push",
                              "--config", str(tmp_path / "none.toml")])
    assert res.exit_code == 2 and "workflow_run and issue_comment" in res.output
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    res = runner.invoke(app, ["pr", "review"])
    assert res.exit_code == 2 and "GITHUB_EVENT_PATH" in res.output


def test_github_failures_and_enterprise_url(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(500, json={"message": "boom"})

    waits: list[float] = []
    monkeypatch.setattr("githubkit.core.time.sleep", waits.append)  # githubkit's own backoff, not waited out
    gh = GitHubProvider("acme/kernels", "t", base_url=BASE, transport=httpx.MockTransport(handler))
    with pytest.raises(GitHubError) as info:
        gh.pull(3)
    assert info.value.status == "github_error" and "HTTP 500" in info.value.message
    assert seen == [f"{BASE}/repos/acme/kernels/pulls/3"] * 4 and waits == [1, 4, 9]  # retried 3 times, backing off
    monkeypatch.setenv("GITHUB_API_URL", "https://ghe.example/api/v3")
    assert api_url(None) == "https://ghe.example/api/v3" and api_url("https://x/api/v3") == "https://x/api/v3"


def test_pyproject_tool_kreview_is_the_configuration(tmp_path: Path) -> None:
    from reviewer.pr.repoconfig import load_config_file

    notes: list[str] = []
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "k"\n[tool.kreview]\nmax_comments = 4\n'
                                             '[tool.kreview.target]\ngpu = "H100"\n')
    cfg = load_repo_config(tmp_path, notes)
    assert (cfg.max_comments, cfg.default_target.gpu) == (4, "H100")
    assert notes and "[target] table is deprecated, use 'default_target'" in notes[0]  # the old table's new name
    notes.clear()
    (tmp_path / ".kreview.toml").write_text("max_comments = 9\n")
    assert load_repo_config(tmp_path, notes).max_comments == 4  # pyproject wins over the old file...
    assert notes and ".kreview.toml" in notes[0] and "ignored" in notes[0]  # ...and the user is told
    notes.clear()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "k"\n')  # no [tool.kreview]: the old file
    assert load_repo_config(tmp_path, notes).max_comments == 9
    assert "deprecated" in notes[0] and "[tool.kreview]" in notes[0]
    (tmp_path / "pyproject.toml").write_text("[tool.kreview]\nmax_coments = 4\n")
    with pytest.raises(ConfigError) as info:
        load_repo_config(tmp_path)
    assert "[tool.kreview] in pyproject.toml" in info.value.message and "max_coments" in info.value.message
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "k"\n')
    with pytest.raises(ConfigError):
        load_config_file(tmp_path / "pyproject.toml")  # named explicitly but has no table
    assert load_config_file(tmp_path / ".kreview.toml").max_comments == 9


def test_diff_reads_tool_kreview_at_the_revision(tmp_path: Path) -> None:
    import git

    from reviewer.pr.diffreview import repo_config_at

    repo = git.Repo.init(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.kreview]\nseeds = 5\n")
    (tmp_path / ".kreview.toml").write_text("seeds = 2\n")
    repo.index.add(["pyproject.toml", ".kreview.toml"])
    commit = repo.index.commit("config", author=git.Actor("t", "t@e"), committer=git.Actor("t", "t@e"))
    notes: list[str] = []
    assert repo_config_at(commit, notes=notes).review["seeds"] == 5
    assert notes and commit.hexsha[:12] in notes[0]


def test_github_client_retries_and_follows_pagination(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 502 or a rate limit does not fail the posting job (githubkit's retry), and lists longer than a
    page are read to the end through GitHub's Link headers (githubkit's paginator)."""
    from tests.e2e.pr.fakegithub import FakeGitHub

    waits: list[float] = []
    monkeypatch.setattr("githubkit.core.time.sleep", waits.append)
    fake = FakeGitHub()
    fake.files[7] = [{"filename": f"k/{i}.py", "status": "modified"} for i in range(230)]
    failures = iter([httpx.Response(429, headers={"retry-after": "2"}, json={"message": "secondary rate limit"}),
                     httpx.Response(502, text="bad gateway")])
    calls: list[str] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(f"{request.url.path}?{request.url.query.decode()}")
        nxt = next(failures, None)
        return nxt if nxt is not None else fake.handle(request)

    gh = GitHubProvider("acme/kernels", "t", base_url=BASE, transport=httpx.MockTransport(flaky))
    files = gh.pull_files(7)
    assert [f["filename"] for f in files] == [f"k/{i}.py" for i in range(230)]
    assert waits == [2, 4]  # the rate limit waited its Retry-After, then the 502 backed off (2nd try: 4 s)
    pages = [c for c in calls if "/pulls/7/files" in c]
    assert len(pages) == 5 and "page=3" in pages[-1]  # 2 failed tries + 3 pages of 100
