"""Tensor files a child wrote, loaded in the reviewer's process: laid out as torch.save writes them
(members stored, never compressed) or refused before anything is inflated."""

from __future__ import annotations

import io
import zipfile

import pytest
import torch

import tools.engine.harness.tensors as tensors


def _saved(value: object) -> bytes:
    buf = io.BytesIO()
    torch.save(value, buf)
    return buf.getvalue()


def _recompressed(data: bytes) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, src.read(info.filename))
    return out.getvalue()


def test_what_torch_save_writes_loads() -> None:
    value = [torch.arange(6.0).reshape(2, 3), {"b": torch.ones(4, dtype=torch.int64)}]
    got = tensors.loads(_saved(value))
    assert torch.equal(got[0], value[0]) and torch.equal(got[1]["b"], value[1]["b"])


def test_a_compressed_archive_is_refused_though_torch_would_inflate_it() -> None:
    bomb = _recompressed(_saved(torch.zeros(2**22, dtype=torch.uint8)))  # 4 MiB of zeros in a few KB
    assert len(bomb) < 2**16 and torch.load(io.BytesIO(bomb), weights_only=True).numel() == 2**22
    with pytest.raises(ValueError, match="compressed member"):
        tensors.loads(bomb)


def test_a_file_that_is_no_archive_is_refused() -> None:
    with pytest.raises(ValueError, match="not a torch.save archive"):
        tensors.loads(b"\x80\x02]q\x00.")  # a bare pickle
