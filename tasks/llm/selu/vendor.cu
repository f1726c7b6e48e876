// Vendor contender: cuDNN graph API (backend descriptors; the cuDNN frontend headers are not part of
// the toolkit). cuDNN has no SELU op, so the graph composes it: an ELU_FWD pointwise op with
// alpha into a virtual FP32 tensor, then a MUL pointwise op with lambda as a by-value FP32 scalar:
// y = lambda * (x > 0 ? x : alpha * (exp(x) - 1)).
// FP32 math for both precisions (bf16 tensors in the bf16 variant). The execution plan is built once
// per (N, alpha; lambda is passed per call) and cached; a call builds a variant pack and executes on the legacy default stream
// (kernels/include/mskb_cudnn_pointwise.cuh).
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>
#include <vector>

#include "mskb_cudnn_pointwise.cuh"
#include "mskb_vendor.cuh"

namespace {

void run(cudnnDataType_t type, const void* input, void* output, int N, float alpha, float lambda) {
  const std::vector<mskb_pw::Node> chain = {{CUDNN_POINTWISE_ELU_FWD, static_cast<double>(alpha), false},
                                            {CUDNN_POINTWISE_MUL, 0.0, true}};
  const std::string key =
      std::string("selu|") + (type == CUDNN_DATA_FLOAT ? "f32|" : "bf16|") + std::to_string(N) + "|" + mskb_pw::key_num(alpha);
  mskb_pw::run(key, chain, type, N, input, output, &lambda);
}

}  // namespace

extern "C" void selu(float* output, const float* input, const int N, float alpha, float lambda) {
  run(CUDNN_DATA_FLOAT, input, output, N, alpha, lambda);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void selu_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N, float alpha, float lambda) {
  run(CUDNN_DATA_BFLOAT16, input, output, N, alpha, lambda);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
