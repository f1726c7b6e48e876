// Vendor contender: cuDNN cudnnBatchNormalizationForwardTraining in PER_ACTIVATION mode on the
// N x C x 1 x 1 NCHW view of the same memory: statistics per (c, 1, 1) activation over the N samples,
// i.e. per channel over the batch (the mode PyTorch uses for 2-D inputs), biased variance for the
// normalisation, no running or saved statistics. Descriptors are made once per (type, N, C) and cached.
// bf16: bf16 x / y with FP32 scale and bias (cuDNN's rule for bf16 data): the ABI passes bf16 gamma and
// beta, so a one-launch glue kernel widens them into FP32 scratch first (the one hand-written kernel
// here, forced by the ABI's parameter type; 2C elements).
// Measured on the H200 (large sweep, docs/results/vendor_routes_algebra_llm.md): SPATIAL and
// SPATIAL_PERSISTENT over the NHWC view (H = W = 1) reached 0.04-0.08 of the roofline (P 0.12-0.14),
// PER_ACTIVATION 0.30-0.43 (P 0.52-0.58): cuDNN's batch-norm kernels are built for a spatial extent,
// and with H = W = 1 none of its modes streams the N x C matrix at bandwidth. No library route reaches
// the naive kernel here; this is the best measured one.
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

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

// The descriptors of the last (type, N, C): made on the first call of a shape (the warm-up).
struct Plan {
  cudnnDataType_t type{};
  int n = -1, c = -1;
  TensorDesc x, bn;
  void prepare(cudnnDataType_t t, int N, int C) {
    if (t == type && N == n && C == c) return;
    MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(x.d, CUDNN_TENSOR_NCHW, t, N, C, 1, 1));
    MSKB_VENDOR_CHECK(cudnnDeriveBNTensorDescriptor(bn.d, x.d, CUDNN_BATCHNORM_PER_ACTIVATION));
    type = t;
    n = N;
    c = C;
  }
};

Plan& plan() {
  static Plan p;
  return p;
}

void batch_norm_cudnn(cudnnDataType_t type, void* y, const void* x, const void* gamma, const void* beta, float eps, int N, int C) {
  cudnnHandle_t h = mskb_vendor::cudnn();
  Plan& p = plan();
  p.prepare(type, N, C);
  if (type == CUDNN_DATA_BFLOAT16) {  // widen gamma and beta into FP32 scratch (the process-wide vendor workspace)
    float* params = static_cast<float*>(mskb_vendor::workspace().get(2 * sizeof(float) * static_cast<size_t>(C)));
    widen<<<(C + 255) / 256, 256>>>(static_cast<const __nv_bfloat16*>(gamma), static_cast<const __nv_bfloat16*>(beta), params,
                                    params + C, C);
    MSKB_VENDOR_CHECK(cudaGetLastError());
    gamma = params;
    beta = params + C;
  }
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_PER_ACTIVATION, &one, &zero, p.x.d, x, p.x.d, y, p.bn.d,
                                                           gamma, beta, 1.0, nullptr, nullptr, static_cast<double>(eps), nullptr,
                                                           nullptr));
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
