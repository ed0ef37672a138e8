"""A buggy CUDA kernel built with load_inline: the same scaled add as examples/scaled_add_cuda but
without the ``i < n`` guard. numel (16 x 16387) is not a multiple of 256, so the threads of the
last block read and write past the end of every tensor. The visible elements are still right, so a
plain comparison passes; compute-sanitizer memcheck reports the invalid global reads and writes.
On a CPU-only machine it compiles (lowering), a static finding names the missing guard, and every
run-based criterion is unverified (no GPU).
Expect: builds=pass, correctness=fail, overall=reject
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
    out[i] = alpha * a[i] + b[i];
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

scaled_add = load_inline(name="kreview_example_scaled_add_buggy", cpp_sources=cpp_source, cuda_sources=cuda_source,
                         functions=["scaled_add"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return scaled_add.scaled_add(a, b, self.alpha)
