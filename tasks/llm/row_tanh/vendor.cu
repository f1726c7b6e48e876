// Vendor contender: cuDNN. cudnnActivationForward(CUDNN_ACTIVATION_TANH) on the vector viewed as a 1 x 1 x
// 1 x N packed NCHW tensor (W innermost, so no kernel maps N onto a 65535-limited grid axis) (alpha = 1,
// beta = 0: y is not read). bf16: the same call with CUDNN_DATA_BFLOAT16 tensors; if the legacy API rejects
// bf16 (NOT_SUPPORTED / BAD_PARAM on the first call), the graph API's CUDNN_POINTWISE_TANH_FWD pointwise op
// (FP32 math, bf16 I/O) is used instead (kernels/include/mskb_cudnn_pointwise.cuh).
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>
#include <vector>

#include "mskb_cudnn_pointwise.cuh"
#include "mskb_vendor.cuh"

namespace {

struct Legacy {
  cudnnActivationDescriptor_t act{};
  cudnnTensorDescriptor_t desc{};
  Legacy() {
    MSKB_VENDOR_CHECK(cudnnCreateActivationDescriptor(&act));
    MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&desc));
  }
  ~Legacy() {
    cudnnDestroyTensorDescriptor(desc);
    cudnnDestroyActivationDescriptor(act);
  }
  Legacy(const Legacy&) = delete;
  Legacy& operator=(const Legacy&) = delete;
  cudnnStatus_t run(cudnnDataType_t type, const void* x, void* y, int n, double coef) {
    MSKB_VENDOR_CHECK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_TANH, CUDNN_NOT_PROPAGATE_NAN, coef));
    MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, type, 1, 1, 1, n));
    const float one = 1.0f, zero = 0.0f;
    return cudnnActivationForward(mskb_vendor::cudnn(), act, &one, desc, x, &zero, desc, y);
  }
};

Legacy& legacy() {
  static Legacy l;
  return l;
}

}  // namespace

extern "C" void row_tanh(float* out, const float* input, const int N) {
  MSKB_VENDOR_CHECK(legacy().run(CUDNN_DATA_FLOAT, input, out, N, 0.0));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void row_tanh_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, const int N) {
  static int legacy_bf16 = -1;  // unknown until the first call
  if (legacy_bf16 != 0) {
    const cudnnStatus_t s = legacy().run(CUDNN_DATA_BFLOAT16, input, out, N, 0.0);
    if (s == CUDNN_STATUS_SUCCESS) {
      legacy_bf16 = 1;
    } else if (legacy_bf16 == -1 && (s == CUDNN_STATUS_NOT_SUPPORTED || s == CUDNN_STATUS_BAD_PARAM)) {
      legacy_bf16 = 0;
    } else {
      MSKB_VENDOR_CHECK(s);
    }
  }
  if (legacy_bf16 == 0) {
    const std::vector<mskb_pw::Node> chain = {{CUDNN_POINTWISE_TANH_FWD, 0.0, false}};
    const std::string key = "row_tanh|bf16|" + std::to_string(N) + "|" + mskb_pw::key_num(0.0);
    mskb_pw::run(key, chain, CUDNN_DATA_BFLOAT16, N, input, out, nullptr);
  }
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
