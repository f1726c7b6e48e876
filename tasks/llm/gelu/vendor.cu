// Vendor contender: cuDNN graph API (backend descriptors; the cuDNN frontend headers are not part of
// the toolkit). One GELU_FWD pointwise op: the exact erf form of GELU (GELU_APPROX_TANH_FWD is
// the tanh approximation, not used).
// FP32 math for both precisions (bf16 tensors in the bf16 variant). The execution plan is built once
// per (N) and cached; a call builds a variant pack and executes on the legacy default stream
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

void run(cudnnDataType_t type, const void* input, void* output, int N) {
  const std::vector<mskb_pw::Node> chain = {{CUDNN_POINTWISE_GELU_FWD, 0.0, false}};
  const std::string key = std::string("gelu|") + (type == CUDNN_DATA_FLOAT ? "f32|" : "bf16|") + std::to_string(N);
  mskb_pw::run(key, chain, type, N, input, output, nullptr);
}

}  // namespace

extern "C" void gelu(float* output, const float* input, const int N) {
  run(CUDNN_DATA_FLOAT, input, output, N);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void gelu_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N) {
  run(CUDNN_DATA_BFLOAT16, input, output, N);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
