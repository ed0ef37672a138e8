"""Cost of the Triton interpreter's guard zones (tools/engine/harness/interpreter_guard.py): an add
kernel launched under TRITON_INTERPRET=1 with the guard and with it suspended, at three sizes.

    python benchmarks/interpreter_guard_overhead.py
"""

from __future__ import annotations

import os
import time

os.environ["TRITON_INTERPRET"] = "1"

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from tools.engine.harness import interpreter_guard as guard  # noqa: E402


@triton.jit
def add(x, y, o, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def main(reps: int = 5) -> None:
    guard.install({})
    for n in (4096, 1 << 20, 1 << 22):
        x, y, o = torch.randn(n), torch.randn(n), torch.empty(n)
        grid = (triton.cdiv(n, 4096),)
        add[grid](x, y, o, n, BLOCK=4096)
        res = {}
        for mode in ("guarded", "plain", "guarded", "plain"):
            t = time.perf_counter()
            for _ in range(reps):
                if mode == "plain":
                    with guard.suspended():
                        add[grid](x, y, o, n, BLOCK=4096)
                else:
                    add[grid](x, y, o, n, BLOCK=4096)
            res.setdefault(mode, []).append((time.perf_counter() - t) / reps)
        assert torch.equal(o, x + y)
        print(f"{n:>8} elements: " + ", ".join(f"{k} {' / '.join(f'{v * 1e3:.2f}' for v in vs)} ms per launch"
                                               for k, vs in res.items()))


if __name__ == "__main__":
    main()
