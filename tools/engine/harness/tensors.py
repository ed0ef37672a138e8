"""Moving values between processes as files, and describing them for evidence."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import torch

import tools.engine.harness.arrays as arrays


def to_plain(value: Any) -> Any:
    """A copy of ``value`` made only of plain CPU tensors, lists, dicts and Python scalars."""
    if isinstance(value, torch.Tensor):
        if type(value) is torch.Tensor:
            return value.detach().to("cpu").clone()
        # A subclass (possibly lazy, possibly without storage): materialise its values. That it was
        # a subclass at all is recorded separately (``describe``) for the integrity check.
        try:
            return value.as_subclass(torch.Tensor).detach().to("cpu").clone()
        except (RuntimeError, TypeError, NotImplementedError):
            return torch.tensor(value.tolist())
    if arrays.kind_of(value) is not None:
        return arrays.to_torch(value)
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    return value


def flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Leaves of a nested structure with their paths ("0", "1.weight", ...)."""
    if isinstance(value, (list, tuple)):
        out: list[tuple[str, Any]] = []
        for i, v in enumerate(value):
            out += flatten(v, f"{prefix}{i}.")
        return out
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out += flatten(v, f"{prefix}{k}.")
        return out
    return [(prefix[:-1] or "0", value)]


def describe(value: Any) -> list[dict[str, Any]]:
    """Shapes, dtypes and layouts of every leaf, for the evidence record."""
    out = []
    for path, leaf in flatten(value):
        if isinstance(leaf, torch.Tensor):
            d: dict[str, Any] = {
                "path": path,
                "type": type(leaf).__name__,
                "shape": list(leaf.shape),
                "dtype": str(leaf.dtype).removeprefix("torch."),
                "device": str(leaf.device),
            }
            try:
                if not leaf.is_contiguous():
                    d["stride"] = list(leaf.stride())
                if leaf.storage_offset():
                    d["storage_offset"] = int(leaf.storage_offset())
            except (RuntimeError, NotImplementedError):
                d["layout"] = "no strides"
            out.append(d)
        elif arrays.kind_of(leaf) is not None:
            out.append({"path": path, "type": type(leaf).__name__, "framework": arrays.kind_of(leaf),
                        "shape": list(leaf.shape), "dtype": str(leaf.dtype), "device": "cpu"})
        else:
            out.append({"path": path, "type": type(leaf).__name__, "value": repr(leaf)[:80]})
    return out


def save(value: Any, path: str) -> None:
    torch.save(to_plain(value), path)


def load(path: str) -> Any:
    # Rationale: weights_only=True: a file written by untrusted code must not run code when loaded.
    return torch.load(path, weights_only=True, map_location="cpu")


def loads(data: bytes) -> Any:
    """``load`` from bytes the parent already read (tools/engine/sandbox/safe_files.py), after
    ``check_archive``: a file a child wrote is loaded in the reviewer's own process."""
    check_archive(data)
    return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")


def check_archive(data: bytes) -> None:
    """Refuse (``ValueError``) a tensor file that is not laid out as ``torch.save`` writes it: a zip
    archive whose members are all stored, not compressed, and together no larger than the file.

    Rationale: ``torch.load`` inflates a deflate-compressed member, about 1,000 to 1 for zeros, so a
    2 MB file written by submission code held a 2 GiB tensor, allocated in the reviewer's process,
    which has no memory budget (tests/data/sandbox/hostile/zip_bomb_output.py); the read cap and
    the sandbox's disk budget bound only the bytes on disk. ``torch.save`` never compresses."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ValueError(f"not a torch.save archive ({exc})") from None
    packed = [m.filename for m in members if m.compress_type != zipfile.ZIP_STORED]
    if packed:
        raise ValueError(f"{len(packed)} compressed member(s) in the archive ({packed[0]}); torch.save "
                         "stores every member uncompressed, and a compressed one is not inflated here")
    if (total := sum(m.file_size for m in members)) > len(data):
        raise ValueError(f"the archive's members declare {total} bytes in a file of {len(data)}")


def move(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, list):
        return [move(v, device) for v in value]
    if isinstance(value, tuple):
        return tuple(move(v, device) for v in value)
    if isinstance(value, dict):
        return {k: move(v, device) for k, v in value.items()}
    return value


def clone(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, list):
        return [clone(v) for v in value]
    if isinstance(value, tuple):
        return tuple(clone(v) for v in value)
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    return value


def cast_floating(value: Any, dtype: torch.dtype) -> Any:
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if arrays.kind_of(value) is not None:
        return arrays.cast(value, dtype)
    if isinstance(value, list):
        return [cast_floating(v, dtype) for v in value]
    if isinstance(value, tuple):
        return tuple(cast_floating(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: cast_floating(v, dtype) for k, v in value.items()}
    return value


def normalise(value: Any) -> tuple[Any, dict[str, str]]:
    """``value`` with every JAX/numpy leaf made a tensor, and ``{leaf path: kind}`` for those leaves."""
    kinds = {path: k for path, leaf in flatten(value) if (k := arrays.kind_of(leaf)) is not None}
    if not kinds:
        return value, {}
    return arrays.map_leaves(value, lambda path, leaf: arrays.to_torch(leaf) if path in kinds else leaf), kinds


def restore(value: Any, kinds: dict[str, str]) -> Any:
    """Undo ``normalise``: the leaves named in ``kinds`` become arrays of that kind again."""
    if not kinds:
        return value
    return arrays.map_leaves(value, lambda path, leaf: arrays.from_torch(leaf, kinds[path])
                if path in kinds and isinstance(leaf, torch.Tensor) else leaf)
