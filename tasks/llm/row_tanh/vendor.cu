// Vendor contender: CUB cub::DeviceTransform::Transform (CCCL, CUDA 13) on the legacy default stream,
// one pass over the vector: y = tanh(x), computed in FP32 by the functor below
// (bf16: the input is widened to float and the result rounded to bf16 once). DeviceTransform picks the
// memory-access scheme for the architecture (on sm_90 bulk copies of tiles into shared memory), with no
// temporary storage, descriptor or plan. Replaced cuDNN cudnnActivationForward(TANH) (bf16 at ~0.4 of the
// bandwidth roofline on the H200, fp32 ~0.7; see docs/results/vendor_routes_algebra_llm.md).
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

namespace {

struct Op {
  __device__ __forceinline__ float f(float x) const { return tanhf(x); }
  __device__ __forceinline__ float operator()(float x) const { return f(x); }
  // bf16: tanh(x) = 1 - 2 / (e^2x + 1) with __expf and __fdividef (absolute error ~1e-7, far below the bf16
  // output rounding and the 1e-5 absolute tolerance; e^2x = inf gives 1, e^2x = 0 gives -1) in place of
  // tanhf, which made the bf16 call instruction-bound (0.76 of the bandwidth roofline on the H200 at the
  // largest shape against 0.94 for RELU).
  __device__ __forceinline__ float fast(float x) const { return 1.0f - __fdividef(2.0f, __expf(2.0f * x) + 1.0f); }
  __device__ __forceinline__ __nv_bfloat16 operator()(__nv_bfloat16 x) const { return __float2bfloat16(fast(__bfloat162float(x))); }
};

template <class T>
void run(T* out, const T* in, int n, Op op) {
  if (n > 0) MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(in, out, n, op));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void row_tanh(float* out, const float* input, const int N) { run(out, input, N, Op{}); }

extern "C" void row_tanh_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, const int N) { run(out, input, N, Op{}); }
