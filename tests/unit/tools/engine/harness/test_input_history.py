"""Inputs handed to the submission stay alive (tools/engine/harness/input_history.py): a later input
never gets an earlier one's address, up to the cap."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

import tools.engine.harness.input_history as H


@pytest.fixture(autouse=True)
def fresh_history() -> Iterator[None]:
    kept, state = list(H._KEPT), dict(H._STATE)
    H._KEPT.clear()
    H._STATE.update(bytes=0, released=0, kept=0)
    yield
    H._KEPT.clear()
    H._KEPT.extend(kept)
    H._STATE.update(state)


def test_a_kept_input_address_is_never_handed_out_again() -> None:
    seen: set[int] = set()
    for _ in range(50):
        x = [torch.randn(64, 300)]  # same size every time: the allocator's first choice is the freed block
        assert x[0].data_ptr() not in seen
        seen.add(x[0].data_ptr())
        H.keep(x)
        del x
    assert H.stats() == {"bytes": 50 * 64 * 300 * 4, "released": 0, "kept": 50}


def test_without_keeping_the_address_comes_back() -> None:
    """What the history prevents: the freed input's block is the next one's."""
    ptrs = []
    for _ in range(20):
        x = torch.randn(64, 300)
        ptrs.append(x.data_ptr())
        del x
    assert len(set(ptrs)) < len(ptrs)


def test_the_oldest_are_released_past_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(H, "keep_bytes", lambda: 3 * 4096)
    for _ in range(5):
        H.keep({"x": torch.empty(1024), "n": 3})  # 4 KiB each; non-tensors are carried along
    assert H.stats() == {"bytes": 3 * 4096, "released": 2, "kept": 5}
    assert len(H._KEPT) == 3


def test_the_cap_follows_the_address_space_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(H.resource, "getrlimit", lambda _: (6144 << 20, 6144 << 20))
    assert H.keep_bytes() == 384 << 20
    monkeypatch.setattr(H.resource, "getrlimit", lambda _: (H.resource.RLIM_INFINITY,) * 2)
    assert H.keep_bytes() == H.KEEP_BYTES
