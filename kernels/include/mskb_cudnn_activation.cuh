// The legacy cuDNN activation route shared by the activation tasks' vendor contenders (RELU, elu,
// sigmoid, row_tanh): cudnnActivationForward(mode, coef) on the vector viewed as a 1 x 1 x 1 x N packed
// NCHW tensor (W innermost, so no kernel maps N onto a 65535-limited grid axis), alpha = 1, beta = 0
// (y is not read). bf16: the same call with CUDNN_DATA_BFLOAT16 tensors; if the legacy API rejects bf16
// (NOT_SUPPORTED / BAD_PARAM on the first call), the graph API's pointwise op of the same function
// (FP32 math, bf16 I/O, mskb_cudnn_pointwise.cuh) is used from then on. Every call ends with
// cudaDeviceSynchronize().
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>
#include <vector>

#include "mskb_cudnn_pointwise.cuh"
#include "mskb_vendor.cuh"

namespace mskb_act {

class Activation {
 public:
  // `key` names the plan cache entries of the fallback ("<key>|bf16|<N>", plus "|<coef>" if
  // key_has_coef); `fallback` is the pointwise mode that computes the same function (its parameter:
  // coef, the ELU alpha or the RELU lower-clip slope).
  Activation(cudnnActivationMode_t mode, cudnnPointwiseMode_t fallback, const char* key, bool key_has_coef)
      : mode_(mode), fallback_(fallback), key_(key), key_has_coef_(key_has_coef) {
    MSKB_VENDOR_CHECK(cudnnCreateActivationDescriptor(&act_));
    MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&desc_));
  }
  ~Activation() {
    cudnnDestroyTensorDescriptor(desc_);
    cudnnDestroyActivationDescriptor(act_);
  }
  Activation(const Activation&) = delete;
  Activation& operator=(const Activation&) = delete;

  void fp32(const float* x, float* y, int n, double coef = 0.0) {
    MSKB_VENDOR_CHECK(legacy(CUDNN_DATA_FLOAT, x, y, n, coef));
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
  }

  void bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int n, double coef = 0.0) {
    if (legacy_bf16_ != 0) {
      const cudnnStatus_t s = legacy(CUDNN_DATA_BFLOAT16, x, y, n, coef);
      if (s == CUDNN_STATUS_SUCCESS) {
        legacy_bf16_ = 1;
      } else if (legacy_bf16_ == -1 && (s == CUDNN_STATUS_NOT_SUPPORTED || s == CUDNN_STATUS_BAD_PARAM)) {
        legacy_bf16_ = 0;
      } else {
        MSKB_VENDOR_CHECK(s);
      }
    }
    if (legacy_bf16_ == 0) {
      const std::vector<mskb_pw::Node> chain = {{fallback_, coef, false}};
      std::string key = key_ + "|bf16|" + std::to_string(n);
      if (key_has_coef_) key += "|" + mskb_pw::key_num(coef);
      mskb_pw::run(key, chain, CUDNN_DATA_BFLOAT16, n, x, y, nullptr);
    }
    MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
  }

 private:
  cudnnStatus_t legacy(cudnnDataType_t type, const void* x, void* y, int n, double coef) {
    MSKB_VENDOR_CHECK(cudnnSetActivationDescriptor(act_, mode_, CUDNN_NOT_PROPAGATE_NAN, coef));
    MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(desc_, CUDNN_TENSOR_NCHW, type, 1, 1, 1, n));
    const float one = 1.0f, zero = 0.0f;
    return cudnnActivationForward(mskb_vendor::cudnn(), act_, &one, desc_, x, &zero, desc_, y);
  }

  cudnnActivationMode_t mode_;
  cudnnPointwiseMode_t fallback_;
  std::string key_;
  bool key_has_coef_;
  cudnnActivationDescriptor_t act_{};
  cudnnTensorDescriptor_t desc_{};
  int legacy_bf16_ = -1;  // does the legacy call take bf16? unknown until the first bf16 call
};

}  // namespace mskb_act
