"""Hypothesis' own files kept out of the user's working directory during a review."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator

from hypothesis import configuration


@contextlib.contextmanager
def private_storage() -> Iterator[None]:
    """Hypothesis caches what it reads from loaded modules under ``./.hypothesis``; a review must not
    write into the user's working directory, so the cache lives in a temporary directory."""
    previous = vars(configuration).get("__hypothesis_home_directory")
    with tempfile.TemporaryDirectory(prefix="kreview-hypothesis-") as tmp:
        configuration.set_hypothesis_home_dir(tmp)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(previous)
