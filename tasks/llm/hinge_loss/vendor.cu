// Vendor contender: Thrust. thrust::transform(thrust::device, ...) over (prediction, target) pairs with
// a functor computing max(0, 1 - (2t - 1) p) in FP32 (bf16 prediction converted to float, result rounded
// to bf16 once). Launches on the legacy default stream.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

#include "mskb_vendor.cuh"

namespace {

struct Hinge {
  __device__ float operator()(float p, int t) const { return fmaxf(0.0f, 1.0f - (2.0f * static_cast<float>(t) - 1.0f) * p); }
};

struct HingeBf16 {
  __device__ __nv_bfloat16 operator()(__nv_bfloat16 p, int t) const { return __float2bfloat16(Hinge{}(__bfloat162float(p), t)); }
};

}  // namespace

extern "C" void hinge_loss(float* loss, const float* predictions, const int* targets, int N) {
  if (N > 0) thrust::transform(thrust::device, predictions, predictions + N, targets, loss, Hinge{});
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void hinge_loss_bf16(__nv_bfloat16* loss, const __nv_bfloat16* predictions, const int* targets, int N) {
  if (N > 0) thrust::transform(thrust::device, predictions, predictions + N, targets, loss, HingeBf16{});
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
