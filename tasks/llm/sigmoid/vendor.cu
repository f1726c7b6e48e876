// Vendor contender: cuDNN. cudnnActivationForward(CUDNN_ACTIVATION_SIGMOID) on the vector viewed as a 1 x 1 x
// 1 x N packed NCHW tensor (alpha = 1, beta = 0: y is not read). bf16: the same call with CUDNN_DATA_BFLOAT16
// tensors; if the legacy API rejects bf16 (NOT_SUPPORTED / BAD_PARAM on the first call), the graph API's
// CUDNN_POINTWISE_SIGMOID_FWD pointwise op (FP32 math, bf16 I/O) is used instead
// (kernels/include/mskb_cudnn_activation.cuh).
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "mskb_cudnn_activation.cuh"
#include "mskb_vendor.cuh"

namespace {
mskb_act::Activation& activation() {
  static mskb_act::Activation a(CUDNN_ACTIVATION_SIGMOID, CUDNN_POINTWISE_SIGMOID_FWD, "sigmoid", true);
  return a;
}
}  // namespace

extern "C" void sigmoid(float* out, const float* input, const int N) {
  activation().fp32(input, out, N);
}

extern "C" void sigmoid_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, const int N) {
  activation().bf16(input, out, N);
}
