"""A search's draws are a function of its seed alone: importing a local module with constants in it
(hypothesis mixes such constants into its draws) changes nothing inside ``private_storage``."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st

from tools.engine.hypothesis_home import private_storage


def _draws() -> list[tuple[int, int]]:
    got: list[tuple[int, int]] = []

    @settings(max_examples=60, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @seed(1234)
    @given(st.fixed_dictionaries({"a": st.sampled_from(list(range(5000))), "b": st.integers(0, 5000)}))
    def prop(c: dict[str, int]) -> None:
        got.append((c["a"], c["b"]))

    with private_storage():
        prop()
    return got


def test_draws_do_not_depend_on_the_local_modules_loaded(tmp_path: Path) -> None:
    before = _draws()
    # a local module (outside site-packages and the standard library), as kreview's own or a user's is
    (tmp_path / "kreview_consts_probe.py").write_text(
        "def f(x):\n    if x in (4093, 1234, 777, 2500):\n        return 3.25\n    return x * 17 + 999\n")
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.import_module("kreview_consts_probe")
        assert _draws() == before
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kreview_consts_probe", None)
