// Vendor contender: CUB cub::DeviceTransform::Transform (CCCL, CUDA 13) over the two input sequences
// (prediction, target) on the legacy default stream: loss[i] = max(0, 1 - (2 t - 1) p) in FP32 (bf16
// prediction widened, the result rounded to bf16 once). One pass, no temporary storage. Replaced
// thrust::transform (the same operation through Thrust's older dispatch).
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cuda/std/tuple>

#include "mskb_vendor.cuh"

namespace {

struct Hinge {
  __device__ __forceinline__ float f(float p, int t) const { return fmaxf(0.0f, 1.0f - (2.0f * static_cast<float>(t) - 1.0f) * p); }
  __device__ __forceinline__ float operator()(float p, int t) const { return f(p, t); }
  __device__ __forceinline__ __nv_bfloat16 operator()(__nv_bfloat16 p, int t) const { return __float2bfloat16(f(__bfloat162float(p), t)); }
};

template <class T>
void run(T* loss, const T* predictions, const int* targets, int n) {
  if (n > 0) MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(::cuda::std::make_tuple(predictions, targets), loss, n, Hinge{}));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void hinge_loss(float* loss, const float* predictions, const int* targets, int N) { run(loss, predictions, targets, N); }

extern "C" void hinge_loss_bf16(__nv_bfloat16* loss, const __nv_bfloat16* predictions, const int* targets, int N) {
  run(loss, predictions, targets, N);
}
