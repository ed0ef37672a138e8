"""The per-review compile caches a session gives its children (tools/engine/session.py:_new_worker): one
shared by the submission-side children, out of the reference child's environment and reach."""

from __future__ import annotations

from types import SimpleNamespace

from tools.engine.runsetup import DeviceInfo, RunSetup
from tools.engine.sandbox import SandboxLimits
from tools.engine.session import SandboxSession


def test_submission_children_share_a_jax_cache_the_reference_never_sees(tmp_path) -> None:
    src = tmp_path / "task"
    src.mkdir()
    (src / "submission.py").write_text("x = 1\n")
    task = SimpleNamespace(root_path=src, submission_file="submission.py", reference_file="reference.py",
                           inputs_file=None, manifest_file=None)
    session = SandboxSession(task, limits=SandboxLimits(),  # type: ignore[arg-type]
                             device=DeviceInfo(kind="cpu", name="cpu"), setup=RunSetup(can_run=True),
                             workroot=tmp_path / "root")
    sub, side, ref = (session._new_worker(r) for r in ("submission", "memcheck", "reference"))
    cache = tmp_path / "root" / "submission-extensions" / "jax"
    for w in (sub, side):
        assert w.env_extra["JAX_COMPILATION_CACHE_DIR"] == str(cache)
        # every compile is kept (JAX keeps only those over 1 s by default), however small
        assert w.env_extra["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == "0"
        assert w.env_extra["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] == "0"
        assert any(cache.is_relative_to(p) for p in w.writable)
    assert not any(k.startswith("JAX_") for k in ref.env_extra)
    assert not any(cache.is_relative_to(p) for p in ref.writable)
