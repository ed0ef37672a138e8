"""A row softmax in CUDA C through load_inline that stages the row in a static __shared__ array of
65536 floats (256 KB): ptxas refuses it for every architecture (static shared memory is limited to
48 KB; more needs dynamic allocation and an opt-in).

Expect: resources=fail
"""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float buf[];
    __shared__ float row_cache[65536];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) row_cache[c] = x[(size_t)blockIdx.x * cols + c];
    __syncthreads();
    const float* in = row_cache;
    float* out = y + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
    buf[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
        __syncthreads();
    }
    m = buf[0];
    __syncthreads();
    float sum = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(in[c] - m);
    buf[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    sum = buf[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(in[c] - m) / sum;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    softmax_rows<<<x.size(0), THREADS, THREADS * sizeof(float)>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                                                   x.size(1));
    return y;
}
"""

softmax_cpp = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(name="softmax_ext", cpp_sources=softmax_cpp, cuda_sources=softmax_source,
                          functions=["softmax_cuda"], extra_cuda_cflags=["-O3"])


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax_ext.softmax_cuda(x.contiguous())
