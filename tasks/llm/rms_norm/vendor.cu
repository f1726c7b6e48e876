// Vendor contender: cuDNN legacy API. z = [input, -input] (device copy, then cudnnTransformTensor with
// alpha = -1) has mean 0 and biased variance mean(input^2), so cudnnBatchNormalizationForwardTraining in
// PER_ACTIVATION mode on the 2N x 1 x 1 x 1 tensor z (scale 1, bias 0) returns
// input / sqrt(mean(input^2) + eps) in its first N elements. Then output = bias (device copy) and
// cudnnOpTensor(MUL, beta = 1) adds weight * normalised in FP32.
// bf16: bf16 tensors, float scale/bias/statistics (cuDNN's rule for bf16 data), FP32 op-tensor compute.
// The cuDNN frontend (RMSNorm node) is not installed; the backend NORM_FORWARD engines are built for
// [batch, hidden] rows of bounded width, not one vector of up to 2^28 elements.
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "mskb_vendor.cuh"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma nv_diag_suppress 1444
#pragma nv_diag_suppress 1215

namespace {

template <class T>
void rms_norm_cudnn(cudnnDataType_t type, T* y, const T* x, const T* w, const T* b, float eps, int N) {
  if (N <= 0) return;
  if (N > INT_MAX / 2) {
    std::fprintf(stderr, "rms_norm vendor: N = %d too large for the 2N-element cuDNN tensor\n", N);
    std::abort();
  }
  cudnnHandle_t h = mskb_vendor::cudnn();
  cudnnTensorDescriptor_t xd, zd, bnd;
  cudnnOpTensorDescriptor_t op;
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&xd));
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&zd));
  MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&bnd));
  MSKB_VENDOR_CHECK(cudnnCreateOpTensorDescriptor(&op));
  MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, type, N, 1, 1, 1));
  MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(zd, CUDNN_TENSOR_NCHW, type, 2 * N, 1, 1, 1));
  MSKB_VENDOR_CHECK(cudnnDeriveBNTensorDescriptor(bnd, zd, CUDNN_BATCHNORM_PER_ACTIVATION));
  MSKB_VENDOR_CHECK(cudnnSetOpTensorDescriptor(op, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN));

  const size_t bytes = sizeof(T) * static_cast<size_t>(N);
  const size_t zbytes = (2 * bytes + 255) / 256 * 256;
  char* ws = static_cast<char*>(mskb_vendor::workspace().get(2 * zbytes + 256));
  T* z = reinterpret_cast<T*>(ws);
  T* zhat = reinterpret_cast<T*>(ws + zbytes);
  float* scale = reinterpret_cast<float*>(ws + 2 * zbytes);
  float* shift = scale + 1;
  const float one = 1.0f, zero = 0.0f, minus_one = -1.0f;
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(z, x, bytes, cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cudnnTransformTensor(h, &minus_one, xd, x, &zero, xd, z + N));
  MSKB_VENDOR_CHECK(cudnnSetTensor(h, bnd, scale, &one));
  MSKB_VENDOR_CHECK(cudnnSetTensor(h, bnd, shift, &zero));
  MSKB_VENDOR_CHECK(cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_PER_ACTIVATION, &one, &zero, zd, z, zd, zhat, bnd,
                                                           scale, shift, 1.0, nullptr, nullptr, static_cast<double>(eps),
                                                           nullptr, nullptr));
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(y, b, bytes, cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cudnnOpTensor(h, op, &one, xd, zhat, &one, xd, w, &one, xd, y));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
  cudnnDestroyOpTensorDescriptor(op);
  cudnnDestroyTensorDescriptor(bnd);
  cudnnDestroyTensorDescriptor(zd);
  cudnnDestroyTensorDescriptor(xd);
}

}  // namespace

extern "C" void rms_norm(float* output, const float* input, const float* weight, const float* bias, const float epsilon,
                         const int N) {
  rms_norm_cudnn<float>(CUDNN_DATA_FLOAT, output, input, weight, bias, epsilon, N);
}

extern "C" void rms_norm_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const __nv_bfloat16* weight,
                              const __nv_bfloat16* bias, const float epsilon, const int N) {
  rms_norm_cudnn<__nv_bfloat16>(CUDNN_DATA_BFLOAT16, output, input, weight, bias, epsilon, N);
}
