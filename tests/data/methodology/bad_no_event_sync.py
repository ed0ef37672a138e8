"""elapsed_time is read without synchronising on the end event.

Methodology: no_sync_before_stop
"""

import time

import torch

from submission import ModelNew

def bench(reps: int = 50) -> float:
    model = ModelNew().cuda()
    inputs = [torch.randn(4096, 4096, device="cuda") for _ in range(8)]
    cache = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    for x in inputs[:3]:
        model(x)  # warm-up: compilation and autotuning happen outside the clock
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        cache.zero_()  # evict the L2 cache
        x = inputs[i % len(inputs)]
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        model(x)
        end.record()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]
