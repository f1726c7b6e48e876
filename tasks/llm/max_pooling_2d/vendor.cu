// Vendor contender: cuDNN legacy API. cudnnPoolingForward with a CUDNN_POOLING_MAX 2-D descriptor
// (window k x k, padding p, stride s, NaN not propagated; cuDNN ignores padded cells in max pooling) on
// NCHW tensor descriptors of type CUDNN_DATA_FLOAT (fp32) or CUDNN_DATA_BFLOAT16 (bf16; the max is exact).
// The output shape cuDNN derives is checked against (H + 2p - k) / s + 1. The descriptors are made once
// per process and set once per shape (they were created and destroyed in every call before).
// mskb-link: cudnn
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>

#include "mskb_vendor.cuh"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma nv_diag_suppress 1444
#pragma nv_diag_suppress 1215

namespace {

struct Descs {
  cudnnTensorDescriptor_t x{}, y{};
  cudnnPoolingDescriptor_t pool{};
  cudnnDataType_t type{};
  int n = -1, c = -1, h = -1, w = -1, k = -1, s = -1, p = -1;
  Descs() {
    MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&x));
    MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&y));
    MSKB_VENDOR_CHECK(cudnnCreatePoolingDescriptor(&pool));
  }
  ~Descs() {
    cudnnDestroyPoolingDescriptor(pool);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
  }
  Descs(const Descs&) = delete;
  Descs& operator=(const Descs&) = delete;

  // Sets the descriptors on the first call of a shape (type, N, C, H, W, k, s, p); later calls reuse them.
  void prepare(cudnnDataType_t t, int N, int C, int H, int W, int K, int S, int P, int oH, int oW) {
    if (t == type && N == n && C == c && H == h && W == w && K == k && S == s && P == p) return;
    MSKB_VENDOR_CHECK(cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, K, K, P, P, S, S));
    MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, t, N, C, H, W));
    int n2, c2, h2, w2;
    MSKB_VENDOR_CHECK(cudnnGetPooling2dForwardOutputDim(pool, x, &n2, &c2, &h2, &w2));
    if (n2 != N || c2 != C || h2 != oH || w2 != oW) {
      std::fprintf(stderr, "max_pooling_2d vendor: cuDNN output %dx%dx%dx%d, expected %dx%dx%dx%d\n", n2, c2, h2, w2, N, C, oH, oW);
      std::abort();
    }
    MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, t, N, C, oH, oW));
    type = t;
    n = N;
    c = C;
    h = H;
    w = W;
    k = K;
    s = S;
    p = P;
  }
};

void max_pool_cudnn(cudnnDataType_t type, const void* x, void* y, int N, int C, int H, int W, int k, int s, int p) {
  const int oH = (H + 2 * p - k) / s + 1, oW = (W + 2 * p - k) / s + 1;
  if (N <= 0 || C <= 0 || oH <= 0 || oW <= 0) return;
  static Descs d;
  d.prepare(type, N, C, H, W, k, s, p, oH, oW);
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cudnnPoolingForward(mskb_vendor::cudnn(), d.pool, &one, d.x, x, &zero, d.y, y));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void max_pooling_2d(const float* input, float* output, int N, int C, int H, int W, int kernel_size, int stride,
                               int padding) {
  max_pool_cudnn(CUDNN_DATA_FLOAT, input, output, N, C, H, W, kernel_size, stride, padding);
}

extern "C" void max_pooling_2d_bf16(const __nv_bfloat16* input, __nv_bfloat16* output, int N, int C, int H, int W, int kernel_size,
                                    int stride, int padding) {
  max_pool_cudnn(CUDNN_DATA_BFLOAT16, input, output, N, C, H, W, kernel_size, stride, padding);
}
