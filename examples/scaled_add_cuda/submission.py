"""A correct CUDA kernel built with load_inline (KernelBench style): one thread per element over the
flattened tensor, guarded by ``i < n`` for the threads of the last block past the end.
On a GPU: builds, correctness and compute-sanitizer (memcheck, racecheck, initcheck, synccheck) pass.
On a CPU-only machine: nvcc compiles it (lowering), every run-based criterion is unverified (no GPU).
Expect: builds=pass, correctness=pass
Expect on CPU: builds=unverified, correctness=unverified, overall=needs_human
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>

__global__ void scaled_add_kernel(const float* a, const float* b, float* out, float alpha, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = alpha * a[i] + b[i];
    }
}

torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b, double alpha) {
    TORCH_CHECK(a.is_cuda() && b.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(a.sizes() == b.sizes(), "a and b must have the same shape");
    auto ac = a.contiguous();
    auto bc = b.contiguous();
    auto out = torch::empty_like(ac);
    long n = ac.numel();
    const int threads = 256;
    const long blocks = (n + threads - 1) / threads;
    scaled_add_kernel<<<blocks, threads>>>(ac.data_ptr<float>(), bc.data_ptr<float>(), out.data_ptr<float>(),
                                           (float)alpha, n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

cpp_source = "torch::Tensor scaled_add(torch::Tensor a, torch::Tensor b, double alpha);"

scaled_add = load_inline(name="kreview_example_scaled_add", cpp_sources=cpp_source, cuda_sources=cuda_source,
                         functions=["scaled_add"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return scaled_add.scaled_add(a, b, self.alpha)
