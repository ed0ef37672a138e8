"""Wall time of reviewing the bundled NKI examples (builds, correctness, nki tools; 3 seeds), and of the
interpreter alone on a larger tiled matmul. Run: python benchmarks/nki_review.py"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def review_times() -> None:
    from reviewer.api import start_review
    from reviewer.core.config import ReviewConfig

    for ex in sorted((ROOT / "examples").glob("nki_*")):
        with tempfile.TemporaryDirectory() as runs:
            cfg = ReviewConfig(runs_dir=Path(runs), seed=1234, signoff=False,
                               only=["builds", "correctness", "nki"])
            t0 = time.perf_counter()
            r = start_review(ex, cfg)
            dt = time.perf_counter() - t0
        verdicts = ", ".join(f"{c.id}={c.verdict}" for c in r.criteria if c.id in ("builds", "correctness"))
        print(f"{ex.name:24s} {dt:6.1f} s  {r.overall:12s} {verdicts}")


def interpreter_matmul(m: int = 512, k: int = 1024, n: int = 1024) -> None:
    import numpy as np

    import tools.engine.nki.interp as nki
    from tools.engine.nki.interp import language as nl

    @nki.jit
    def matmul(lhsT, rhs):
        out = nl.ndarray((m, n), dtype=lhsT.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(m // 128):
            for j in nl.affine_range(n // 512):
                acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
                for kk in nl.affine_range(k // 128):
                    acc += nl.matmul(nl.load(lhsT[kk * 128:(kk + 1) * 128, i * 128:(i + 1) * 128]),
                                     nl.load(rhs[kk * 128:(kk + 1) * 128, j * 512:(j + 1) * 512]), transpose_x=True)
                nl.store(out[i * 128:(i + 1) * 128, j * 512:(j + 1) * 512], value=nl.copy(acc))
        return out

    a = np.random.rand(k, m).astype(np.float32)
    b = np.random.rand(k, n).astype(np.float32)
    t0 = time.perf_counter()
    matmul(a, b)
    dt = time.perf_counter() - t0
    calls = (m // 128) * (n // 512) * (k // 128)
    print(f"interpreter: {m}x{k}x{n} fp32 matmul, {calls} nl.matmul tiles: {dt:.2f} s ({dt / calls * 1e3:.2f} ms/tile)")


if __name__ == "__main__":
    interpreter_matmul()
    review_times()
