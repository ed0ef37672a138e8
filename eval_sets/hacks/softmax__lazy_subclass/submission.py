"""Returns a lazy tensor subclass: forward only records the input, and the softmax kernel runs
when the harness first touches the result (outside any timed region).
Expect: integrity=fail
Defect: not_plain_tensor
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(in_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


class LazySoftmax(torch.Tensor):
    """Holds the input; fills itself with the softmax on first use."""

    @staticmethod
    def __new__(cls, source):
        self = torch.Tensor._make_subclass(cls, torch.empty_like(source))
        self._source = source.contiguous()
        self._done = False
        return self

    def _materialize(self):
        if not self._done:
            self._done = True
            plain = self.as_subclass(torch.Tensor)
            n = self._source.shape[-1]
            softmax_kernel[(self._source.shape[0],)](plain, self._source, n, BLOCK=triton.next_power_of_2(n))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        for a in args:
            if isinstance(a, LazySoftmax):
                a._materialize()
        return super().__torch_function__(func, types, args, kwargs or {})


class ModelNew(nn.Module):
    def forward(self, x):
        return LazySoftmax(x)
