"""Which NKI runs a submission: the real SDK when it imports, otherwise the reviewer's interpreter,
installed by the child prelude under both the ``neuronxcc.nki`` and the newer ``nki`` spelling."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES, ROOT
from tools.engine.backends import nki as backend
from tools.engine.runsetup import DeviceInfo
from tools.engine.nki.version import INTERPRETER_LABEL

CPU = DeviceInfo(kind="cpu", name="cpu")


def run_child(code: str, env: dict[str, str] | None = None) -> str:
    """Run ``code`` in a fresh interpreter (the prelude rewires sys.modules; keep it out of pytest's)."""
    import os

    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_pypi_placeholders_are_not_taken_for_the_sdk() -> None:
    found = backend.probe_sdk()
    assert found["neuronxcc"] is None and found["nki"] is None


def test_without_the_sdk_the_interpreter_is_selected_and_named() -> None:
    setup = backend.NkiBackend().run_setup(CPU)
    assert setup.can_run and setup.interpreted
    assert dict(setup.env)["KREVIEW_NKI_MODE"] == "interpreter"
    assert setup.note.startswith(INTERPRETER_LABEL) and "Neuron SDK 2.25.0" in setup.note
    assert setup.preludes == ("tools.engine.nki.prelude", "tools.engine.harness.cuda_shim")


@pytest.mark.parametrize(("found", "mode", "simulator_env"), [
    ({"neuronxcc": "2.20.2831.0", "nki": None, "device": False}, "neuronxcc", None),
    ({"neuronxcc": None, "nki": "0.2.0", "device": False}, "nki", "1"),
    ({"neuronxcc": None, "nki": "0.2.0", "device": True}, "nki", None),
])
def test_with_the_sdk_its_simulator_or_device_is_selected(monkeypatch: pytest.MonkeyPatch, found: dict,
                                                         mode: str, simulator_env: str | None) -> None:
    monkeypatch.setattr(backend, "probe_sdk", lambda: found)
    setup = backend.NkiBackend().run_setup(CPU)
    env = dict(setup.env)
    assert env["KREVIEW_NKI_MODE"] == mode and env.get("NKI_SIMULATOR") == simulator_env
    assert "AWS Neuron SDK" in setup.note and INTERPRETER_LABEL not in setup.note
    assert setup.interpreted is not found["device"]


def test_forcing_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backend, "probe_sdk", lambda: {"neuronxcc": "x", "nki": None, "device": False})
    monkeypatch.setenv(backend.FORCE_ENV, "interpreter")
    assert dict(backend.NkiBackend().run_setup(CPU).env)["KREVIEW_NKI_MODE"] == "interpreter"


def test_prelude_resolves_every_spelling_to_the_interpreter() -> None:
    out = run_child("""
        from tools.engine.nki import prelude
        prelude.install({})
        import neuronxcc.nki as a, neuronxcc.nki.language as b, neuronxcc.nki.isa as c, neuronxcc.nki.typing as d
        from neuronxcc import nki as e
        import nki, nki.language as nl, nki.isa as nisa
        import numpy as np
        assert a is e is nki and b is nl and c is nisa and a.IS_REVIEWER_INTERPRETER
        @nki.jit
        def k(x):
            out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
            nl.store(out, value=nisa.activation(op=nl.exp, data=nl.load(x)))
            return out
        x = np.zeros((2, 3), np.float32)
        print(k(x).tolist(), a.simulate_kernel(k, x).sum(), nki.simulate(k)(x).sum())
    """)
    assert out.split() == ["[[1.0,", "1.0,", "1.0],", "[1.0,", "1.0,", "1.0]]", "6.0", "6.0"]


def test_prelude_routes_torch_calls_through_the_real_sdk_simulator(tmp_path: Path) -> None:
    fake = tmp_path / "neuronxcc" / "nki"
    fake.mkdir(parents=True)
    (tmp_path / "neuronxcc" / "__init__.py").write_text("__version__ = 'fake'\n")
    (fake / "__init__.py").write_text(textwrap.dedent("""
        import numpy as np
        calls = []
        def jit(func=None, **kwargs):
            return ("jitted", func)
        def simulate_kernel(kernel, *args):
            assert kernel[0] == "jitted" and all(isinstance(a, np.ndarray) for a in args)
            calls.append(len(args))
            return kernel[1](*args)
    """))
    out = run_child(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from tools.engine.nki import prelude
        prelude.install({{}})
        import neuronxcc.nki as nki
        import torch
        @nki.jit
        def k(a, b):
            return a * 2 + b
        y = k(torch.ones(2, 2), torch.ones(2, 2))
        print(type(y).__name__, y.tolist(), nki.calls)
    """, env={"KREVIEW_NKI_MODE": "neuronxcc"})
    assert out.strip() == "Tensor [[3.0, 3.0], [3.0, 3.0]] [2]"


@pytest.mark.parametrize("imports", ["import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n",
                                     "import nki\nimport nki.language as nl\n",
                                     "from neuronxcc import nki\nfrom neuronxcc.nki import language as nl\n"])
def test_submissions_in_every_spelling_are_detected_as_nki(tmp_path: Path, imports: str) -> None:
    (tmp_path / "reference.py").write_text((EXAMPLES / "nki_tensor_add" / "reference.py").read_text())
    source = (EXAMPLES / "nki_tensor_add" / "submission.py").read_text()
    head = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
    assert head in source
    (tmp_path / "submission.py").write_text(source.replace(head, imports))
    assert load_submission(tmp_path).framework == "nki"
