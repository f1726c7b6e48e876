// Vendor contender: cuBLAS + cuDNN. Row-major X (r x c) is the column-major X^T with ld = c, so
//   S (q x kv, row-major) = Q K^T / sqrt(dqk):  S^T = K * Q^T  -> GEMM(OP_T, OP_N, m = kv, n = q, k = dqk)
//   Y (q x dv, row-major) = P V:                Y^T = V^T P^T  -> GEMM(OP_N, OP_N, m = dv, n = q, k = kv)
// with the softmax between them done by cudnnSoftmaxForward(CUDNN_SOFTMAX_ACCURATE, MODE_INSTANCE) on the
// q x kv x 1 x 1 FP32 tensor S (max-subtracted, per row). fp32: cublasSgemm (default math, no TF32).
// bf16: cublasGemmEx with CUDA_R_16BF Q/K and a CUDA_R_32F S (CUBLAS_COMPUTE_32F), FP32 softmax, P narrowed
// to bf16 by cub::DeviceTransform (GEMM inputs must share a type), cublasGemmEx P V with FP32 compute and
// reduced-precision split-K reductions disallowed. S and P live in the vendor workspace.
// mskb-link: cublas cudnn
#include <cublas_v2.h>
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <math.h>

#include "mskb_vendor.cuh"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma nv_diag_suppress 1444
#pragma nv_diag_suppress 1215

namespace {

// Row softmax of the q x kv FP32 matrix S into P with cuDNN; the descriptor is made once per process
// and set once per shape.
void softmax_rows(const float* S, float* P, int q, int kv) {
  struct Desc {
    cudnnTensorDescriptor_t d{};
    int q = -1, kv = -1;
    Desc() { MSKB_VENDOR_CHECK(cudnnCreateTensorDescriptor(&d)); }
    ~Desc() { cudnnDestroyTensorDescriptor(d); }
    Desc(const Desc&) = delete;
    Desc& operator=(const Desc&) = delete;
  };
  static Desc desc;
  if (desc.q != q || desc.kv != kv) {
    MSKB_VENDOR_CHECK(cudnnSetTensor4dDescriptor(desc.d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, q, kv, 1, 1));
    desc.q = q;
    desc.kv = kv;
  }
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cudnnSoftmaxForward(mskb_vendor::cudnn(), CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, desc.d, S,
                                        &zero, desc.d, P));
}

struct ToBf16 {
  __device__ __forceinline__ __nv_bfloat16 operator()(float v) const { return __float2bfloat16(v); }
};

size_t align256(size_t b) { return (b + 255) / 256 * 256; }

}  // namespace

extern "C" void softmax_attention(float* Y, const float* Q, const float* K, const float* V, int q_seq_len, int kv_seq_len,
                                  int dim_qk, int dim_v) {
  const int q = q_seq_len, kv = kv_seq_len, dqk = dim_qk, dv = dim_v;
  if (q <= 0 || kv <= 0 || dqk <= 0 || dv <= 0) return;
  const size_t sbytes = align256(sizeof(float) * static_cast<size_t>(q) * kv);
  char* ws = static_cast<char*>(mskb_vendor::workspace().get(2 * sbytes));
  float* S = reinterpret_cast<float*>(ws);
  float* P = reinterpret_cast<float*>(ws + sbytes);
  cublasHandle_t h = mskb_vendor::cublas();
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const float scale = 1.0f / sqrtf(static_cast<float>(dqk)), one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, kv, q, dqk, &scale, K, dqk, Q, dqk, &zero, S, kv));
  softmax_rows(S, P, q, kv);
  MSKB_VENDOR_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, dv, q, kv, &one, V, dv, P, kv, &zero, Y, dv));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void softmax_attention_bf16(__nv_bfloat16* Y, const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                       int q_seq_len, int kv_seq_len, int dim_qk, int dim_v) {
  const int q = q_seq_len, kv = kv_seq_len, dqk = dim_qk, dv = dim_v;
  if (q <= 0 || kv <= 0 || dqk <= 0 || dv <= 0) return;
  const long long ns = static_cast<long long>(q) * kv;
  const size_t sbytes = align256(sizeof(float) * static_cast<size_t>(ns));
  const size_t pbytes = align256(sizeof(__nv_bfloat16) * static_cast<size_t>(ns));
  char* ws = static_cast<char*>(mskb_vendor::workspace().get(2 * sbytes + pbytes));
  float* S = reinterpret_cast<float*>(ws);
  float* P = reinterpret_cast<float*>(ws + sbytes);
  __nv_bfloat16* Pb = reinterpret_cast<__nv_bfloat16*>(ws + 2 * sbytes);
  cublasHandle_t h = mskb_vendor::cublas();
  MSKB_VENDOR_CHECK(cublasSetMathMode(
      h, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  const float scale = 1.0f / sqrtf(static_cast<float>(dqk)), one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, kv, q, dqk, &scale, K, CUDA_R_16BF, dqk, Q, CUDA_R_16BF, dqk, &zero,
                                 S, CUDA_R_32F, kv, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  softmax_rows(S, P, q, kv);
  MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(P, Pb, ns, ToBf16{}));
  MSKB_VENDOR_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, dv, q, kv, &one, V, CUDA_R_16BF, dv, Pb, CUDA_R_16BF, kv, &zero, Y,
                                 CUDA_R_16BF, dv, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
