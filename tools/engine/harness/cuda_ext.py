"""Standalone ``.cu`` submissions (manifest format): build the file as a torch extension and return
its entry function.

The ``.cu`` file holds the kernels and a host function taking and returning ``torch::Tensor``
(``[submission] entry`` names it), e.g. ``torch::Tensor add(torch::Tensor a, torch::Tensor b)``.
Its declaration is read from the file and handed to ``load_inline``, which generates the Python
binding; nothing else is required of the file. Runs only in a sandbox child on a CUDA machine.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

_DECL = r"(?:^|\n)\s*((?:static\s+|inline\s+)*[\w:<>, ]+?[\s*&]+{name}\s*\([^;{{)]*\))\s*\{{"


def entry_declaration(source: str, entry: str) -> str:
    """``<return type> entry(<params>);`` as written in ``source`` (its definition's signature)."""
    m = re.search(_DECL.format(name=re.escape(entry)), source)
    if m is None:
        raise AttributeError(f"no host function definition named {entry!r} (e.g. "
                             f"'torch::Tensor {entry}(torch::Tensor x) {{ ... }}') in the .cu file")
    decl = " ".join(m.group(1).split())
    decl = re.sub(r"^(?:(?:static|inline)\s+)+", "", decl)
    return decl + ";"


def load_cu(path: Path, entry: str) -> Any:
    """Compile ``path`` with ``load_inline`` and return its ``entry`` function."""
    from torch.utils.cpp_extension import load_inline

    source = path.read_text()
    decl = entry_declaration(source, entry)
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    module = load_inline(name=f"kreview_{re.sub(r'[^A-Za-z0-9_]', '_', path.stem)}_{digest}",
                         cpp_sources=[decl], cuda_sources=[source], functions=[entry], verbose=False)
    return getattr(module, entry)
