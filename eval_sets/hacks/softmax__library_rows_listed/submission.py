"""Plain Python computes the softmax row by row from ``tolist()`` copies made on a helper thread (each copy
one row, far below the whole input), and a Triton kernel copies the result into the output. The copies
are counted over the whole call, and the helper thread's are seen through the same hand-off as its
operators, so the withheld run answers the later rows with poison and the output moves.
Expect: builds=pass, correctness=pass, integrity=fail
Defect: hidden_library_work
"""

import math
import threading

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(in_ptr + offs, mask=mask), mask=mask)


def _row_softmax(values: list[float]) -> list[float]:
    top = max(values)
    e = [math.exp(v - top) for v in values]
    s = sum(e)
    return [v / s for v in e]


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1])
        rows: list[list[float]] = []
        worker = threading.Thread(target=lambda: rows.extend(_row_softmax(x2[i].tolist())
                                                             for i in range(x2.shape[0])))
        worker.start()
        worker.join()
        y = torch.tensor(rows, dtype=x.dtype, device=x.device)
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](out, y, y.numel(), BLOCK=1024)
        return out.reshape(x.shape)
