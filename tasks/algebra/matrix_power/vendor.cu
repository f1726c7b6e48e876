// Vendor contender: cuBLAS binary exponentiation. Squares of A and the running result each ping-pong
// between two workspace buffers (a product never overwrites its own input), every product is a
// cublasSgemm with CUBLAS_DEFAULT_MATH (true FP32; powers of A commute, so the row-major/column-major
// swap of operands does not matter, but it is done right anyway: Z^T = Y^T X^T), and the result is
// copied into B. bf16: A is widened once to FP32 and the same FP32 exponentiation runs; B is rounded
// once to bf16 (two cub::DeviceTransform conversions). A bf16 GemmEx chain would round every intermediate power
// to bf16, which the bf16 tolerance (FP32 intermediates) rejects.
// mskb-link: cublas
#include <cublas_v2.h>
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "mskb_vendor.cuh"

namespace {

// Z = X * Y, all n x n row-major.
void sgemm_rowmajor(cublasHandle_t h, const float* X, const float* Y, float* Z, int n) {
  const float one = 1.0f, zero = 0.0f;
  MSKB_VENDOR_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, Y, n, X, n, &zero, Z, n));
}

// Returns a workspace buffer holding A^P; `a` is not modified. ws holds 4 n x n FP32 buffers.
const float* power_fp32(const float* a, int n, int p, float* ws) {
  cublasHandle_t h = mskb_vendor::cublas();
  MSKB_VENDOR_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
  float* sq[2] = {ws, ws + nn};
  float* res[2] = {ws + 2 * nn, ws + 3 * nn};
  const float* base = a;
  int si = 0, ri = 0;
  bool have = false;
  for (int e = p; e > 0;) {
    if (e & 1) {
      if (!have) {
        MSKB_VENDOR_CHECK(cudaMemcpyAsync(res[ri], base, sizeof(float) * nn, cudaMemcpyDeviceToDevice, 0));
        have = true;
      } else {
        sgemm_rowmajor(h, res[ri], base, res[ri ^ 1], n);
        ri ^= 1;
      }
    }
    e >>= 1;
    if (e > 0) {
      sgemm_rowmajor(h, base, base, sq[si], n);
      base = sq[si];
      si ^= 1;
    }
  }
  return res[ri];
}

struct ToBf16 {
  __device__ __forceinline__ __nv_bfloat16 operator()(float v) const { return __float2bfloat16(v); }
};
struct ToFloat {
  __device__ __forceinline__ float operator()(__nv_bfloat16 v) const { return __bfloat162float(v); }
};

}  // namespace

extern "C" void matrix_power(const float* A, float* B, int N, int P) {
  const size_t nn = static_cast<size_t>(N) * static_cast<size_t>(N);
  float* ws = static_cast<float*>(mskb_vendor::workspace().get(4 * nn * sizeof(float)));
  const float* r = power_fp32(A, N, P, ws);
  MSKB_VENDOR_CHECK(cudaMemcpyAsync(B, r, sizeof(float) * nn, cudaMemcpyDeviceToDevice, 0));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void matrix_power_bf16(const __nv_bfloat16* A, __nv_bfloat16* B, int N, int P) {
  const long long nn = static_cast<long long>(N) * N;
  float* ws = static_cast<float*>(mskb_vendor::workspace().get(5 * static_cast<size_t>(nn) * sizeof(float)));
  float* af = ws + 4 * nn;
  MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(A, af, nn, ToFloat{}));
  const float* r = power_fp32(af, N, P, ws);
  MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(r, B, nn, ToBf16{}));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
