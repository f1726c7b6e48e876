// Vendor contender: CUB (CCCL, CUDA 13), two library calls on the legacy default stream and no host
// synchronisation before the final one:
//   1. cub::DeviceReduce::TransformReduce of (x, x^2) pairs (input widened to double, FP64 sums; with
//      FP64 moments the one-pass variance sum(x^2)/N - mean^2 keeps ~1e-16 * (mean^2 + var) / var relative
//      error, far inside the tolerance for any N up to 2^28), written through a
//      thrust::transform_output_iterator whose functor turns the two sums into {mean, 1/sqrt(var + eps)}
//      as two floats in device scratch;
//   2. cub::DeviceTransform::Transform over (input, weight, bias): output = weight * ((input - mean) *
//      rstd) + bias in FP32, the statistics read from that scratch (bf16: inputs widened, one rounding).
// Traffic 5N elements (the input is read twice) against the 4N of the roofline. The temporary-storage
// size is queried once per N; the statistics and CUB's temporary storage live in the process-wide vendor
// workspace (grown once, reused).
// Replaced: cuDNN cudnnReduceTensor(ADD) + cudnnOpTensor + cudnnReduceTensor(NORM2) + a 4-byte copy to the
// host mid-call + cudnnOpTensor + cudnnAddTensor (bf16 through FP32 staging copies): 0.09 (bf16) / 0.33
// (fp32) of the roofline. The cuDNN backend NORM_FORWARD (LAYER_NORM) engines normalise [batch, hidden]
// rows of bounded width, not one vector of up to 2^28 elements; the cuDNN frontend is not installed.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cuda/std/tuple>
#include <thrust/iterator/transform_output_iterator.h>

#include <cmath>

#include "mskb_vendor.cuh"

namespace {

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ void from_f(float v, float* out) { *out = v; }
__device__ __forceinline__ void from_f(float v, __nv_bfloat16* out) { *out = __float2bfloat16(v); }

struct Moments {
  double sum, sum_sq;
};

struct AddMoments {
  __host__ __device__ __forceinline__ Moments operator()(const Moments& a, const Moments& b) const {
    return Moments{a.sum + b.sum, a.sum_sq + b.sum_sq};
  }
};

struct ToMoments {
  template <class T>
  __device__ __forceinline__ Moments operator()(T x) const {
    const double v = to_f(x);
    return Moments{v, v * v};
  }
};

struct Stats {
  float mean, rstd;
};

// The reduction's result (the FP64 moments) becomes {mean, 1/sqrt(var + eps)} on its way to memory.
struct FinishStats {
  double n, eps;
  __host__ __device__ Stats operator()(const Moments& m) const {
    const double mean = m.sum / n;
    double var = m.sum_sq / n - mean * mean;
    if (var < 0.0) var = 0.0;
    return Stats{static_cast<float>(mean), static_cast<float>(1.0 / sqrt(var + eps))};
  }
};

template <class T>
struct Normalize {
  const Stats* stats;
  __device__ __forceinline__ T operator()(T x, T w, T b) const {
    const Stats s = *stats;
    T y;
    from_f(to_f(w) * ((to_f(x) - s.mean) * s.rstd) + to_f(b), &y);
    return y;
  }
};

template <class T>
void layer_norm_cub(T* y, const T* x, const T* w, const T* b, float eps, int N) {
  if (N > 0) {
    const long long n = N;
    const FinishStats finish{static_cast<double>(n), static_cast<double>(eps)};
    static long long cached_n = -1;  // the size query depends on N only: once per N
    static size_t temp_bytes = 0;
    if (n != cached_n) {
      auto probe = thrust::make_transform_output_iterator(static_cast<Stats*>(nullptr), finish);
      MSKB_VENDOR_CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, x, probe, n, AddMoments{}, ToMoments{}, Moments{0.0, 0.0}));
      cached_n = n;
    }
    constexpr size_t kStats = 256;  // the statistics, then CUB's temporary storage (256-byte aligned)
    char* ws = static_cast<char*>(mskb_vendor::workspace().get(kStats + temp_bytes));
    Stats* stats = reinterpret_cast<Stats*>(ws);
    auto out = thrust::make_transform_output_iterator(stats, finish);
    MSKB_VENDOR_CHECK(
        cub::DeviceReduce::TransformReduce(ws + kStats, temp_bytes, x, out, n, AddMoments{}, ToMoments{}, Moments{0.0, 0.0}));
    MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(::cuda::std::make_tuple(x, w, b), y, n, Normalize<T>{stats}));
  }
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void layer_norm(float* output, const float* input, const float* weight, const float* bias, const float epsilon,
                           const int N) {
  layer_norm_cub<float>(output, input, weight, bias, epsilon, N);
}

extern "C" void layer_norm_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const __nv_bfloat16* weight,
                                const __nv_bfloat16* bias, const float epsilon, const int N) {
  layer_norm_cub<__nv_bfloat16>(output, input, weight, bias, epsilon, N);
}
