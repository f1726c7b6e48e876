// Vendor contender: cuDNN batch norm (forward training, batch statistics, biased variance for the
// normalisation, no running or saved statistics) with the mode chosen per shape by timing, the way
// cudnnFind* chooses a convolution algorithm. The row-major N x C input is the same memory seen two
// ways, both giving per-channel statistics over the N rows:
//   - PER_ACTIVATION on the NCHW N x C x 1 x 1 tensor (statistics per (c, 1, 1) activation over N:
//     the mode PyTorch uses for 2-D inputs);
//   - SPATIAL_PERSISTENT and SPATIAL (cudnnBatchNormalizationForwardTrainingEx, OPS_BN) on the NHWC
//     N x C x 1 x 1 tensor (channels innermost; statistics per channel over N*H*W = N): cuDNN's
//     channels-last kernels. A mode cuDNN refuses for a shape (NOT_SUPPORTED* / BAD_PARAM*) is skipped.
// The first call of a (type, N, C) (the warm-up) runs each mode twice, times the second run with CUDA
// events, and keeps the fastest; descriptors, workspace and reserve sizes are made then and cached per shape (never per
// data). Measured on the H200 (large sweep, 5c8c7aa): PER_ACTIVATION alone took 222 ms at N = 2^20,
// C = 256 and 15 ms at N = 2^16, C = 4096 (one accumulator per channel looping over N) but 1.16 ms at
// N = 1024, C = 2^18, where it beats the naive kernel; the NHWC modes serve the tall shapes.
// bf16: bf16 x / y with FP32 scale and bias (cuDNN's rule for bf16 data): the ABI passes bf16 gamma and
// beta, so a one-launch glue kernel widens them into FP32 scratch first (the one hand-written kernel
// here, forced by the ABI's parameter type; 2C elements).
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <map>
#include <memory>
#include <tuple>

#include "mskb_vendor.cuh"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma nv_diag_suppress 1444
#pragma nv_diag_suppress 1215

namespace {

__global__ void widen(const __nv_bfloat16* a, const __nv_bfloat16* b, float* fa, float* fb, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    fa[i] = __bfloat162float(a[i]);
    fb[i] = __bfloat162float(b[i]);
  }
}

struct TensorDesc {
  cudnnTensorDescriptor_t d{};
  TensorDesc() { MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&d)); }
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};

struct EventPair {
  cudaEvent_t a{}, b{};
  EventPair() {
    MSKB_VENDOR_CHECK(cudaEventCreate(&a));
    MSKB_VENDOR_CHECK(cudaEventCreate(&b));
  }
  ~EventPair() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

bool unsupported(cudnnStatus_t s) {
  const int category = static_cast<int>(s) / 1000;  // cuDNN 9: 2xxx = BAD_PARAM*, 3xxx = NOT_SUPPORTED*
  return category == 2 || category == 3;
}

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

// One mode on one view of the memory, for one (type, N, C).
struct Route {
  cudnnBatchNormMode_t mode{};
  bool nhwc = false;  // false: NCHW PER_ACTIVATION through the legacy call
  TensorDesc x, bn;
  size_t ws_bytes = 0, reserve_bytes = 0;

  // false if cuDNN does not take this mode for the shape.
  bool configure(cudnnHandle_t h, cudnnDataType_t t, int N, int C) {
    MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(x.d, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, t, N, C, 1, 1));
    MSKB_VENDOR_CHECK(cudnnDeriveBNTensorDescriptor(bn.d, x.d, mode));
    if (!nhwc) return true;
    cudnnStatus_t s = cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(h, mode, CUDNN_BATCHNORM_OPS_BN, x.d, nullptr, x.d,
                                                                               bn.d, nullptr, &ws_bytes);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, mode, CUDNN_BATCHNORM_OPS_BN, nullptr, x.d, &reserve_bytes);
    if (s != CUDNN_STATUS_SUCCESS && !unsupported(s)) MSKB_VENDOR_CHECK(s);
    return s == CUDNN_STATUS_SUCCESS;
  }

  size_t scratch_bytes() const { return align256(ws_bytes) + reserve_bytes + 256; }

  cudnnStatus_t forward(cudnnHandle_t h, void* y, const void* x_data, const void* gamma, const void* beta, float eps, char* scratch) const {
    const float one = 1.0f, zero = 0.0f;
    if (!nhwc)
      return cudnnBatchNormalizationForwardTraining(h, mode, &one, &zero, x.d, x_data, x.d, y, bn.d, gamma, beta, 1.0, nullptr, nullptr,
                                                    static_cast<double>(eps), nullptr, nullptr);
    char* reserve = scratch + align256(ws_bytes);
    return cudnnBatchNormalizationForwardTrainingEx(h, mode, CUDNN_BATCHNORM_OPS_BN, &one, &zero, x.d, x_data, nullptr, nullptr, x.d, y,
                                                    bn.d, gamma, beta, 1.0, nullptr, nullptr, static_cast<double>(eps), nullptr, nullptr,
                                                    nullptr, ws_bytes > 0 ? scratch : nullptr, ws_bytes,
                                                    reserve_bytes > 0 ? reserve : nullptr, reserve_bytes);
  }
};

using Key = std::tuple<int, int, int>;  // (type, N, C)

// The chosen route of every shape seen, made on its first call (the warm-up).
std::map<Key, std::unique_ptr<Route>>& chosen() {
  static std::map<Key, std::unique_ptr<Route>> m;
  return m;
}

void batch_norm_cudnn(cudnnDataType_t type, void* y, const void* x, const void* gamma, const void* beta, float eps, int N, int C) {
  cudnnHandle_t h = mskb_vendor::cudnn();
  const size_t params_bytes = type == CUDNN_DATA_BFLOAT16 ? align256(2 * sizeof(float) * static_cast<size_t>(C)) : 0;
  auto widen_params = [&](char* scratch) {  // bf16: FP32 gamma and beta at the front of the scratch
    float* params = reinterpret_cast<float*>(scratch);
    widen<<<(C + 255) / 256, 256>>>(static_cast<const __nv_bfloat16*>(gamma), static_cast<const __nv_bfloat16*>(beta), params,
                                    params + C, C);
    MSKB_VENDOR_CHECK(cudaGetLastError());
    return std::make_pair(static_cast<const void*>(params), static_cast<const void*>(params + C));
  };
  const Key key{static_cast<int>(type), N, C};
  auto it = chosen().find(key);
  if (it == chosen().end()) {  // first call of this shape: time every mode cuDNN takes, keep the fastest
    const std::pair<cudnnBatchNormMode_t, bool> modes[] = {
        {CUDNN_BATCHNORM_PER_ACTIVATION, false}, {CUDNN_BATCHNORM_SPATIAL_PERSISTENT, true}, {CUDNN_BATCHNORM_SPATIAL, true}};
    std::unique_ptr<Route> best;
    float best_ms = 0.0f;
    EventPair ev;
    for (const auto& [mode, nhwc] : modes) {
      auto r = std::make_unique<Route>();
      r->mode = mode;
      r->nhwc = nhwc;
      if (!r->configure(h, type, N, C)) continue;
      char* scratch = static_cast<char*>(mskb_vendor::workspace().get(params_bytes + r->scratch_bytes()));
      const void *g = gamma, *b = beta;
      if (params_bytes > 0) std::tie(g, b) = widen_params(scratch);
      // The first run loads the mode's kernels (lazy module loading); the second is timed.
      cudnnStatus_t s = r->forward(h, y, x, g, b, eps, scratch + params_bytes);
      MSKB_VENDOR_CHECK(cudaEventRecord(ev.a));
      if (s == CUDNN_STATUS_SUCCESS) s = r->forward(h, y, x, g, b, eps, scratch + params_bytes);
      MSKB_VENDOR_CHECK(cudaEventRecord(ev.b));
      MSKB_VENDOR_CHECK(cudaEventSynchronize(ev.b));
      if (s != CUDNN_STATUS_SUCCESS) {
        if (!unsupported(s)) MSKB_VENDOR_CHECK(s);
        continue;  // refused at call time for this shape
      }
      float ms = 0.0f;
      MSKB_VENDOR_CHECK(cudaEventElapsedTime(&ms, ev.a, ev.b));
      if (!best || ms < best_ms) {
        best = std::move(r);
        best_ms = ms;
      }
    }
    if (!best) MSKB_VENDOR_CHECK(CUDNN_STATUS_NOT_SUPPORTED);  // no mode took the shape
    it = chosen().emplace(key, std::move(best)).first;
  }
  const Route& r = *it->second;
  char* scratch = static_cast<char*>(mskb_vendor::workspace().get(params_bytes + r.scratch_bytes()));
  const void *g = gamma, *b = beta;
  if (params_bytes > 0) std::tie(g, b) = widen_params(scratch);
  MSKB_VENDOR_CHECK(r.forward(h, y, x, g, b, eps, scratch + params_bytes));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void batch_norm(float* output, const float* input, const float* gamma, const float* beta, const float epsilon,
                           const int N, const int C) {
  if (N <= 0 || C <= 0) return;
  batch_norm_cudnn(CUDNN_DATA_FLOAT, output, input, gamma, beta, epsilon, N, C);
}

extern "C" void batch_norm_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const __nv_bfloat16* gamma,
                                const __nv_bfloat16* beta, const float epsilon, const int N, const int C) {
  if (N <= 0 || C <= 0) return;
  batch_norm_cudnn(CUDNN_DATA_BFLOAT16, output, input, gamma, beta, epsilon, N, C);
}
