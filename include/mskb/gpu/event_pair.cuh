// Two CUDA events around a timed call (start, stop), destroyed on every path: the candidate's
// samples (entry_point.cu), device time's extra calls (device_activity.cu) and the launch floor.
#pragma once

#include <cuda_runtime.h>

#include "mskb/gpu/check.cuh"

namespace mskb::gpu {

struct CudaEventPair {
  cudaEvent_t start{}, stop{};
  CudaEventPair() {
    MSKB_CUDA_CHECK(cudaEventCreate(&start));
    MSKB_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~CudaEventPair() {
    MSKB_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(start));
    MSKB_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(stop));
  }
  CudaEventPair(const CudaEventPair&) = delete;
  CudaEventPair& operator=(const CudaEventPair&) = delete;
};

}  // namespace mskb::gpu
