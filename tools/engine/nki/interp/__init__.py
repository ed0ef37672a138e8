"""The reviewer's NKI interpreter: a NumPy implementation of the core of NKI (Neuron SDK 2.25.0).

``tools.engine.nki.prelude`` installs it as ``neuronxcc.nki`` / ``nki`` in a sandbox child when the real
Neuron SDK is not importable. See docs/nki.md for what is simulated and what is not.
"""

from __future__ import annotations

from typing import Any

import tools.engine.nki.interp.isa as isa  # noqa: F401
import tools.engine.nki.interp.language as language  # noqa: F401
import tools.engine.nki.interp.typing as typing  # noqa: F401
from tools.engine.nki.interp.errors import NkiUnsupportedName
from tools.engine.nki.interp.kernel import Kernel, baremetal, benchmark, jit, profile, simulate, simulate_kernel, trace  # noqa: F401
from tools.engine.nki.interp.recorder import RECORDER  # noqa: F401
from tools.engine.nki.interp.tensor import Tile as tensor  # noqa: F401
from tools.engine.nki.version import SDK_VERSION

__version__ = SDK_VERSION
tile_size = language.tile_size
IS_REVIEWER_INTERPRETER = True


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NkiUnsupportedName(f"nki.{name}")
