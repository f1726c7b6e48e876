// Vendor contender: cuDNN legacy API. cudnnBatchNormalizationForwardTraining with
// CUDNN_BATCHNORM_PER_ACTIVATION on an N x C x 1 x 1 NCHW tensor: statistics per (c, 1, 1) activation over
// the N samples, i.e. per channel over the batch (the mode PyTorch uses for 2-D inputs), biased variance
// for the normalisation, no running or saved statistics (NULL). bf16: bf16 input/output tensors; cuDNN
// requires float scale/bias for bf16 data, so gamma and beta are widened to float by a copy kernel first.
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

void batch_norm_cudnn(cudnnDataType_t type, void* y, const void* x, const float* gamma, const float* beta, float eps, int N,
                      int C) {
  cudnnHandle_t h = mskb_vendor::cudnn();
  cudnnTensorDescriptor_t xd, bnd;
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&xd));
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&bnd));
  MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, type, N, C, 1, 1));
  MSKB_VENDOR_CHECK(cudnnDeriveBNTensorDescriptor(bnd, xd, CUDNN_BATCHNORM_PER_ACTIVATION));
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_PER_ACTIVATION, &one, &zero, xd, x, xd, y, bnd,
                                                           gamma, beta, 1.0, nullptr, nullptr, static_cast<double>(eps),
                                                           nullptr, nullptr));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
  cudnnDestroyTensorDescriptor(bnd);
  cudnnDestroyTensorDescriptor(xd);
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
  float* params = static_cast<float*>(mskb_vendor::workspace().get(2 * sizeof(float) * static_cast<size_t>(C)));
  widen<<<(C + 255) / 256, 256>>>(gamma, beta, params, params + C, C);
  MSKB_VENDOR_CHECK(cudaGetLastError());
  batch_norm_cudnn(CUDNN_DATA_BFLOAT16, output, input, params, params + C, epsilon, N, C);
}
