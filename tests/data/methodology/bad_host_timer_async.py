"""A host clock stops right after the launch with no synchronize: it measures enqueue time.

Methodology: host_timer_async
"""

import time

import torch

from submission import ModelNew

def bench(reps: int = 50) -> float:
    model = ModelNew().cuda()
    inputs = [torch.randn(4096, 4096, device="cuda") for _ in range(8)]
    cache = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    for x in inputs[:3]:
        model(x)
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        cache.zero_()
        x = inputs[i % len(inputs)]
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        model(x)
        t1 = time.perf_counter()
        times.append(t1 - t0)
    return sorted(times)[len(times) // 2]
