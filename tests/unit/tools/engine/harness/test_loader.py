"""Rebinding a reference's module-level size constants before it runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.engine.harness.loader import import_file

REFERENCE = "batch_size = 16\ninput_shape = (200, 3)\ntotal = batch_size * input_shape[0]\n"


def test_tuple_elements_rebind_and_derived_constants_follow(tmp_path: Path) -> None:
    path = tmp_path / "reference.py"
    path.write_text(REFERENCE)
    mod = import_file(path, "reference_loader_test", {"input_shape[0]": 1537, "batch_size": 2})
    assert mod.input_shape == (1537, 3) and mod.total == 2 * 1537
    with pytest.raises(KeyError, match="input_shape"):
        import_file(path, "reference_loader_test", {"input_shape[2]": 5})
