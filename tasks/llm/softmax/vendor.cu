// Vendor contender: cuDNN. cudnnSoftmaxForward(CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE)
// on the N x C input viewed as an N x C x 1 x 1 packed NCHW tensor (softmax over C per n).
// bf16: the same call with CUDNN_DATA_BFLOAT16 descriptors. If the legacy API rejects bf16
// (a NOT_SUPPORTED* / BAD_PARAM* status on the first call), the closest cuDNN route is used instead: the
// FP32 softmax between two cub::DeviceTransform bf16<->fp32 conversions (FP32 scratch).
// mskb-link: cudnn
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "mskb_vendor.cuh"

namespace {

struct Desc {
  cudnnTensorDescriptor_t d{};
  Desc() { MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&d)); }
  ~Desc() { cudnnDestroyTensorDescriptor(d); }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
};

cudnnStatus_t cudnn_softmax(cudnnDataType_t type, const void* x, void* y, int N, int C) {
  static Desc desc;
  if (const cudnnStatus_t s = cudnnSetTensor4dDescriptor(desc.d, CUDNN_TENSOR_NCHW, type, N, C, 1, 1); s != CUDNN_STATUS_SUCCESS)
    return s;
  const float one = 1.0f, zero = 0.0f;
  return cudnnSoftmaxForward(mskb_vendor::cudnn(), CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, desc.d, x,
                             &zero, desc.d, y);
}

struct ToFloat {
  __device__ __forceinline__ float operator()(__nv_bfloat16 v) const { return __bfloat162float(v); }
};
struct ToBf16 {
  __device__ __forceinline__ __nv_bfloat16 operator()(float v) const { return __float2bfloat16(v); }
};

}  // namespace

extern "C" void softmax(float* out, const float* input, int N, int C) {
  MSKB_VENDOR_CHECK(cudnn_softmax(CUDNN_DATA_FLOAT, input, out, N, C));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void softmax_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, int N, int C) {
  static int legacy_bf16 = -1;  // unknown until the first call
  if (legacy_bf16 != 0) {
    const cudnnStatus_t s = cudnn_softmax(CUDNN_DATA_BFLOAT16, input, out, N, C);
    if (s == CUDNN_STATUS_SUCCESS) {
      legacy_bf16 = 1;
      MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
      return;
    }
    // cuDNN 9 statuses are grouped by thousands: 2xxx = BAD_PARAM*, 3xxx = NOT_SUPPORTED*.
    const int category = static_cast<int>(s) / 1000;
    if (legacy_bf16 == 1 || (category != 2 && category != 3)) MSKB_VENDOR_CHECK(s);
    legacy_bf16 = 0;
  }
  const long long n = static_cast<long long>(N) * C;
  float* scratch = static_cast<float*>(mskb_vendor::workspace().get(2 * static_cast<size_t>(n) * sizeof(float)));
  MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(input, scratch, n, ToFloat{}));
  MSKB_VENDOR_CHECK(cudnn_softmax(CUDNN_DATA_FLOAT, scratch, scratch + n, N, C));
  MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(scratch + n, out, n, ToBf16{}));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
