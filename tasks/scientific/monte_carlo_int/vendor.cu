// Vendor contender: CUB. cub::DeviceReduce::Sum over the samples into an FP32 temporary (BF16: through a
// thrust::transform_iterator that widens each bf16 sample to float, so CUB accumulates in FP32), then a
// one-thread kernel adds (b - a) / N * sum to result (rounding to bf16 once in the BF16 variant).
#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/transform_iterator.h>

#include "mskb_vendor.cuh"

namespace {

struct Widen {
  __host__ __device__ float operator()(const __nv_bfloat16& v) const { return __bfloat162float(v); }
};

__global__ void finish_fp32(float* result, const float* sum, float scale) { result[0] += scale * sum[0]; }
__global__ void finish_bf16(__nv_bfloat16* result, const float* sum, float scale) {
  result[0] = __float2bfloat16(__bfloat162float(result[0]) + scale * sum[0]);
}

// Sums N values of `in` (an iterator yielding float) into a float in the shared workspace; returns it.
template <class It>
float* device_sum(It in, int N) {
  size_t temp_bytes = 0;
  MSKB_VENDOR_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, static_cast<float*>(nullptr), N));
  constexpr size_t kHead = 256;  // the float result, kept 256-byte aligned ahead of CUB's temp storage
  char* ws = static_cast<char*>(mskb_vendor::workspace().get(kHead + temp_bytes));
  float* sum = reinterpret_cast<float*>(ws);
  MSKB_VENDOR_CHECK(cub::DeviceReduce::Sum(ws + kHead, temp_bytes, in, sum, N));
  return sum;
}

}  // namespace

extern "C" void monte_carlo_int(const float* y_samples, float* result, float a, float b, int N) {
  if (N <= 0) return;
  float* sum = device_sum(y_samples, N);
  finish_fp32<<<1, 1>>>(result, sum, (b - a) / static_cast<float>(N));
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void monte_carlo_int_bf16(const __nv_bfloat16* y_samples, __nv_bfloat16* result, float a, float b, int N) {
  if (N <= 0) return;
  float* sum = device_sum(thrust::make_transform_iterator(y_samples, Widen{}), N);
  finish_bf16<<<1, 1>>>(result, sum, (b - a) / static_cast<float>(N));
  MSKB_VENDOR_CHECK(cudaGetLastError());
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
