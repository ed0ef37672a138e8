"""The child's environment: thread pools that wait passively (no core spun on after each parallel
operation, benchmarks/thread_spin.py) with the same thread counts, so the same split of the work."""

from __future__ import annotations

from pathlib import Path

from tools.engine.sandbox.env import scrubbed_env


def test_thread_pools_wait_passively_with_the_limits_thread_count(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # the reviewer's own setting does not reach the child
    monkeypatch.setenv("OPENBLAS_THREAD_TIMEOUT", "30")
    for threads in (1, 2, 7):
        env = scrubbed_env(tmp_path / str(threads), threads=threads)
        assert env["OMP_WAIT_POLICY"] == "PASSIVE" and env["OPENBLAS_THREAD_TIMEOUT"] == "4"
        assert env["OMP_NUM_THREADS"] == env["MKL_NUM_THREADS"] == env["OPENBLAS_NUM_THREADS"] == str(threads)
        assert (tmp_path / str(threads) / "home").is_dir() and env["HOME"] == str(tmp_path / str(threads) / "home")
