// Vendor contender: CUB. cub::DeviceReduce::TransformReduce over a counting iterator; the transform
// reads X[i], Y[i] (bf16 converted to float) and returns (X[i] - Y[i])^2 * (1/N), the reduction is an
// FP32 sum written straight into *loss. Temporary storage comes from the shared vendor workspace; its size is queried once per N.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include "mskb_vendor.cuh"

namespace {

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
struct ScaledSquaredDiff {
  const T* x;
  const T* y;
  float inv_n;
  __device__ float operator()(long long i) const {
    const float d = to_f(x[i]) - to_f(y[i]);
    return d * d * inv_n;
  }
};

template <class T>
void run(float* loss, const T* X, const T* Y, int N) {
  if (N <= 0) return;
  const thrust::counting_iterator<long long> first(0);
  const ScaledSquaredDiff<T> op{X, Y, 1.0f / static_cast<float>(N)};
  const long long n = N;
  static long long cached_n = -1;  // the size query depends on N only (per precision: one instantiation each)
  static size_t bytes = 0;
  if (n != cached_n) {
    MSKB_VENDOR_CHECK(cub::DeviceReduce::TransformReduce(nullptr, bytes, first, loss, n, cuda::std::plus<float>{}, op, 0.0f));
    cached_n = n;
  }
  void* tmp = mskb_vendor::workspace().get(bytes > 0 ? bytes : 1);
  MSKB_VENDOR_CHECK(cub::DeviceReduce::TransformReduce(tmp, bytes, first, loss, n, cuda::std::plus<float>{}, op, 0.0f));
}

}  // namespace

extern "C" void MSE_loss(float* loss, const float* X, const float* Y, int N) {
  run(loss, X, Y, N);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void MSE_loss_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, int N) {
  run(loss, X, Y, N);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
