// Vendor contender: cuDNN graph API (backend descriptors; the cuDNN frontend headers are not part of
// the toolkit). One RELU_FWD pointwise op with lower clip 0, upper clip FLT_MAX and lower-clip
// slope alpha: y = x > 0 ? x : alpha * x.
// FP32 math for both precisions (bf16 tensors in the bf16 variant). The execution plan is built once
// per (N, alpha) and cached; a call builds a variant pack and executes on the legacy default stream
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

void run(cudnnDataType_t type, const void* input, void* output, int N, float alpha) {
  const std::vector<mskb_pw::Node> chain = {{CUDNN_POINTWISE_RELU_FWD, static_cast<double>(alpha), false}};
  const std::string key = std::string("leaky_RELU|") + (type == CUDNN_DATA_FLOAT ? "f32|" : "bf16|") + std::to_string(N) + "|" +
                          mskb_pw::key_num(alpha);
  mskb_pw::run(key, chain, type, N, input, output, nullptr);
}

}  // namespace

extern "C" void leaky_RELU(float* output, const float* input, const int N, float alpha) {
  run(CUDNN_DATA_FLOAT, input, output, N, alpha);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void leaky_RELU_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N, float alpha) {
  run(CUDNN_DATA_BFLOAT16, input, output, N, alpha);
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
