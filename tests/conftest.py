"""Hermetic test setup: every test gets its own runs dir and no user configuration."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reviewer.core.config import ReviewConfig
from reviewer.core.limits import SandboxLimits
from tests.reviewcache import ReviewCache, shared_folder

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="session")
def reference_store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference's kept answers (tools/engine/reference_store.py), one folder for the whole session and
    all its xdist workers: the kernels of one family share their reference's answers, as a batch does; never
    the user's own store."""
    base = tmp_path_factory.getbasetemp()
    return (shared_folder(base) or base) / "reference-store"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference_store_dir: Path) -> None:
    monkeypatch.setenv("KREVIEW_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("KREVIEW_REFERENCE_CACHE", str(reference_store_dir))
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "KREVIEW_MODEL", "GITHUB_TOKEN"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _no_user_llm_files(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every LLM test (tests/unit/reviewer/llm, tests/e2e/llm) runs without the user's config or cache."""
    if "llm" not in request.node.path.parts:
        return
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("KREVIEW_CONFIG", raising=False)


@pytest.fixture
def config(tmp_path: Path) -> ReviewConfig:
    """A deterministic, no-sign-off config; tests copy it with the changes they need."""
    return ReviewConfig(runs_dir=tmp_path / "runs", seed=1234, signoff=False,
                        limits=SandboxLimits(call_timeout_s=float(os.environ.get("KREVIEW_TEST_TIMEOUT", 60))))


@pytest.fixture(scope="session")
def reviews(tmp_path_factory: pytest.TempPathFactory) -> ReviewCache:
    """Reviews of this session by kernel and settings (tests/reviewcache.py): a test that reviews a kernel
    another test already reviewed with the same settings gets that review instead of a second run."""
    return ReviewCache(shared_folder(tmp_path_factory.getbasetemp()))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
