// Vendor contender: CUB cub::DeviceTransform::Transform (CCCL, CUDA 13) on the legacy default stream,
// one pass over the vector: y = lambda * (x > 0 ? x : alpha * expm1(x)), computed in FP32 by the functor below
// (bf16: the input is widened to float and the result rounded to bf16 once). DeviceTransform picks the
// memory-access scheme for the architecture (on sm_90 bulk copies of tiles into shared memory), with no
// temporary storage, descriptor or plan. Replaced a cuDNN graph of ELU_FWD and MUL pointwise ops (bf16 at ~0.4 of the
// bandwidth roofline on the H200, fp32 ~0.7; see docs/results/vendor_routes_algebra_llm.md).
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

namespace {

struct Op {
  float alpha;
  float lambda;
  __device__ __forceinline__ float f(float x) const { return lambda * (x > 0.0f ? x : alpha * expm1f(x)); }
  __device__ __forceinline__ float operator()(float x) const { return f(x); }
  __device__ __forceinline__ __nv_bfloat16 operator()(__nv_bfloat16 x) const { return __float2bfloat16(f(__bfloat162float(x))); }
};

template <class T>
void run(T* out, const T* in, int n, Op op) {
  if (n > 0) MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(in, out, n, op));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void selu(float* output, const float* input, const int N, float alpha, float lambda) { run(output, input, N, Op{alpha, lambda}); }

extern "C" void selu_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N, float alpha, float lambda) { run(output, input, N, Op{alpha, lambda}); }
