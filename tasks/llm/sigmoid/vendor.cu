// Vendor contender: CUB cub::DeviceTransform::Transform (CCCL, CUDA 13) on the legacy default stream,
// one pass over the vector: y = 1 / (1 + exp(-x)), computed in FP32 by the functor below
// (bf16: the input is widened to float and the result rounded to bf16 once). DeviceTransform picks the
// memory-access scheme for the architecture (on sm_90 bulk copies of tiles into shared memory), with no
// temporary storage, descriptor or plan. Replaced cuDNN cudnnActivationForward(SIGMOID) (bf16 at ~0.4 of the
// bandwidth roofline on the H200, fp32 ~0.7; see docs/results/vendor_routes_algebra_llm.md).
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

namespace {

struct Op {
  __device__ __forceinline__ float f(float x) const { return 1.0f / (1.0f + expf(-x)); }
  __device__ __forceinline__ float operator()(float x) const { return f(x); }
  // bf16: __expf and __fdividef (a few ulp of FP32, far below the bf16 output rounding) in place of expf
  // and an IEEE division, which made the bf16 call instruction-bound (0.70 of the bandwidth roofline on
  // the H200 at N = 2^28 against 0.94 for RELU). 1 + e^-x overflowing to inf gives 0, as it should.
  __device__ __forceinline__ float fast(float x) const { return __fdividef(1.0f, 1.0f + __expf(-x)); }
  __device__ __forceinline__ __nv_bfloat16 operator()(__nv_bfloat16 x) const { return __float2bfloat16(fast(__bfloat162float(x))); }
};

template <class T>
void run(T* out, const T* in, int n, Op op) {
  if (n > 0) MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(in, out, n, op));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void sigmoid(float* out, const float* input, const int N) { run(out, input, N, Op{}); }

extern "C" void sigmoid_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, const int N) { run(out, input, N, Op{}); }
