// Vendor contender: CUB. One cub::DeviceReduce::Reduce (a float sum, init 0) over a
// thrust::transform_iterator on a counting_iterator that yields w[i] * y[i] in FP32 (w = the composite
// Simpson weights in units of h/12, with the even-N last-interval correction; bf16 samples widened to
// float), whose single output goes through a thrust::transform_output_iterator that adds h/12 * sum to
// result (rounded to bf16 once in the BF16 variant): the reduction's last kernel writes the result,
// with no finishing kernel and no host synchronization but the entry point's final one. CUB's temporary
// storage is grown on demand (in the harness's warm-up) and freed at exit.
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include "mskb_vendor.cuh"

namespace {

__host__ __device__ inline float load(const float* p, int i) { return p[i]; }
__host__ __device__ inline float load(const __nv_bfloat16* p, int i) { return __bfloat162float(p[i]); }

template <class T>
struct WeightedSample {
  const T* y;
  int n;
  __host__ __device__ float operator()(int i) const {
    const int last = (n % 2 == 1) ? n - 1 : n - 2;
    float w = 0.0f;
    if (i <= last) w = (i == 0 || i == last) ? 4.0f : ((i % 2 == 1) ? 16.0f : 8.0f);
    if (n % 2 == 0) {
      if (i == n - 3) w -= 1.0f;
      if (i == n - 2) w += 8.0f;
      if (i == n - 1) w += 5.0f;
    }
    return w * load(y, i);
  }
};

__host__ __device__ inline float to_float(float v) { return v; }
__host__ __device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__host__ __device__ inline void from_float(float v, float& out) { out = v; }
__host__ __device__ inline void from_float(float v, __nv_bfloat16& out) { out = __float2bfloat16(v); }

// result + scale * sum, in the result's type (the value written to result).
template <class T>
struct AddScaled {
  const T* result;
  float scale;
  __host__ __device__ T operator()(float sum) const {
    T r{};
    from_float(to_float(*result) + scale * sum, r);
    return r;
  }
};

// result += scale * sum over i of w[i] * y[i].
template <class T>
void integrate(const T* y, T* result, float scale, int N) {
  auto in = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), WeightedSample<T>{y, N});
  auto out = thrust::make_transform_output_iterator(result, AddScaled<T>{result, scale});
  size_t temp_bytes = 0;
  MSKB_VENDOR_CHECK(cub::DeviceReduce::Reduce(nullptr, temp_bytes, in, out, N, ::cuda::std::plus<float>{}, 0.0f));
  void* temp = mskb_vendor::workspace().get(temp_bytes > 0 ? temp_bytes : 1);
  MSKB_VENDOR_CHECK(cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, N, ::cuda::std::plus<float>{}, 0.0f));
}

}  // namespace

extern "C" void simpson_int(const float* y_samples, float* result, float a, float b, int N) {
  if (N >= 3) integrate(y_samples, result, (b - a) / static_cast<float>(N - 1) / 12.0f, N);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void simpson_int_bf16(const __nv_bfloat16* y_samples, __nv_bfloat16* result, float a, float b, int N) {
  if (N >= 3) integrate(y_samples, result, (b - a) / static_cast<float>(N - 1) / 12.0f, N);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
