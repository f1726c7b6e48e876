// FP64 GPU reference shared by the SpMM tasks' reference.cu files (tasks/sparse/spmm_*/): the
// CPU reference costs nnz * K multiply-adds (up to ~1e11), so shapes at or above the harness's
// threshold are computed here instead. The matrix arrives row-grouped (mskb/core/sparse_gen.hpp), each output
// Y[i][k] is one thread summing its row's products in the same order as the CPU reference, with
// unfused multiply and add, so both references agree bit for bit.
// Everything sits in an anonymous namespace: each reference.cu gets its own copy of the kernel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mskb/gpu/check.cuh"
#include "mskb/gpu/reference.cuh"
#include "mskb/core/sparse_gen.hpp"

namespace mskb::sparse {
namespace {

__global__ void spmm_rows_fp64_kernel(int64_t rows, int64_t K, const int64_t* offsets, const int32_t* cols, const double* vals,
                                      const double* X, double* Y) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= rows * K) return;
  const int64_t i = t / K, k = t - i * K;
  double acc = 0.0;
  for (int64_t p = offsets[i]; p < offsets[i + 1]; ++p)
    acc = __dadd_rn(acc, __dmul_rn(vals[p], X[static_cast<int64_t>(cols[p]) * K + k]));
  Y[t] = acc;
}

// A device array freed when it goes out of scope (errors throw mskb::gpu::CudaError).
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t n) { MSKB_CUDA_CHECK(cudaMalloc(&p_, std::max<std::size_t>(n, 1) * sizeof(T))); }
  template <class Host>  // a std::vector<T> or HostData
  explicit DeviceArray(const Host& host) : DeviceArray(host.size()) {
    if (!host.empty()) MSKB_CUDA_CHECK(cudaMemcpy(p_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { MSKB_CUDA_CHECK_NOEXCEPT(cudaFree(p_)); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

// Y (rows x K, row-major, already sized) = A * X with X cols x K row-major, A row-grouped. With
// `keep` (the caller compares on the device: mskb::gpu::GpuReferenceFn), Y stays there, in
// keep->out[y_param], and the host Y is left as it was.
inline void spmm_rows_gpu(const RowGrouped& g, int64_t K, const mskb::HostData& X, mskb::HostData& Y,
                          mskb::gpu::DeviceOutputs* keep, std::size_t y_param) {
  const auto rows = static_cast<int64_t>(g.offsets.size()) - 1;
  const int64_t total = rows * K;
  if (total <= 0) return;
  DeviceArray<int64_t> offsets(g.offsets);
  DeviceArray<int32_t> cols(g.col);
  DeviceArray<double> vals(g.val);
  DeviceArray<double> x(X);
  mskb::gpu::DeviceMemory y(static_cast<std::size_t>(total) * sizeof(double));
  const int threads = 256;
  const int64_t blocks = (total + threads - 1) / threads;
  spmm_rows_fp64_kernel<<<static_cast<unsigned>(blocks), threads>>>(rows, K, offsets.get(), cols.get(), vals.get(), x.get(),
                                                                    static_cast<double*>(y.get()));
  MSKB_CUDA_CHECK(cudaGetLastError());
  if (keep != nullptr && y_param < keep->out.size()) {
    MSKB_CUDA_CHECK(cudaDeviceSynchronize());
    keep->out[y_param] = std::move(y);
    return;
  }
  Y.resize(static_cast<std::size_t>(total));
  MSKB_CUDA_CHECK(cudaMemcpy(Y.data(), y.get(), static_cast<std::size_t>(total) * sizeof(double), cudaMemcpyDeviceToHost));
}

}  // namespace
}  // namespace mskb::sparse
