"""Hypothesis run the way a review needs it: its files out of the user's working directory, and its
draws a function of the seed alone.

Rationale for the second: since 6.131 hypothesis mixes into its draws constants it reads from every
*local* module loaded in the process (any module outside site-packages and the standard library:
kreview itself when installed editable or run from a checkout, the user's own modules when the API is
embedded). The same seed then drew different shapes depending on which modules happened to be
imported (measured: 24 of 60 draws differed after importing one local module with four constants), so
the checks a review ran depended on the reviewer's installation and process, not only on the kernel.
Inside ``private_storage`` that pool is empty, whatever is loaded.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Iterator

from hypothesis import configuration
from hypothesis.internal.conjecture import providers


def _no_local_constants() -> providers.Constants:
    return providers.Constants()


_lock = threading.Lock()
_holders = 0
_own = getattr(providers, "_get_local_constants", None)


def _clear_pools() -> None:
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if cache is not None:
        cache.cache.clear()  # pools computed with (or without) the local constants


@contextlib.contextmanager
def _without_local_constants() -> Iterator[None]:
    """Counted, so concurrent searches (threads of one process) restore the original only when the last ends."""
    global _holders
    with _lock:
        if _holders == 0 and _own is not None:
            providers._get_local_constants = _no_local_constants  # type: ignore[attr-defined]
            _clear_pools()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _own is not None:
                providers._get_local_constants = _own  # type: ignore[attr-defined]
                _clear_pools()


@contextlib.contextmanager
def private_storage() -> Iterator[None]:
    """Hypothesis caches what it reads from loaded modules under ``./.hypothesis``; a review must not
    write into the user's working directory, so the cache lives in a temporary directory. The local
    constants hypothesis would mix into its draws are none while this holds (see the module)."""
    previous = vars(configuration).get("__hypothesis_home_directory")
    with tempfile.TemporaryDirectory(prefix="kreview-hypothesis-") as tmp, _without_local_constants():
        configuration.set_hypothesis_home_dir(tmp)
        try:
            yield
        finally:
            configuration.set_hypothesis_home_dir(previous)
