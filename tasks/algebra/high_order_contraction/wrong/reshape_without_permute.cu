// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: the "reshape A to (a*b) x (x*y) and do one GEMM" route without the permutation it needs: it
// reads A as if it were laid out [a][b][x][y] instead of [a][x][b][y]. Identical when x_dim == 1 or
// b_dim == 1, wrong otherwise (already on the first paper shape).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void contract_abxy(const T* A, const T* B, T* C, int ad, int bd, int cd, int xd, int yd) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(ad) * bd * cd) return;
  const long long c = idx % cd, b = (idx / cd) % bd, a = idx / (static_cast<long long>(cd) * bd);
  float acc = 0.0f;
  for (int x = 0; x < xd; ++x)
    for (int y = 0; y < yd; ++y)
      acc += to_f(A[((a * bd + b) * xd + x) * yd + y]) * to_f(B[(static_cast<long long>(x) * cd + c) * yd + y]);
  store(C + idx, acc);
}

template <class T>
void launch(const T* A, const T* B, T* C, int ad, int bd, int cd, int xd, int yd) {
  const long long total = static_cast<long long>(ad) * bd * cd;
  contract_abxy<<<static_cast<unsigned>((total + 255) / 256), 256>>>(A, B, C, ad, bd, cd, xd, yd);
  cudaDeviceSynchronize();
}

extern "C" void high_order_contraction(const float* A, const float* B, float* C, int a_dim, int b_dim, int c_dim, int x_dim,
                                       int y_dim) {
  launch(A, B, C, a_dim, b_dim, c_dim, x_dim, y_dim);
}
extern "C" void high_order_contraction_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int a_dim, int b_dim,
                                            int c_dim, int x_dim, int y_dim) {
  launch(A, B, C, a_dim, b_dim, c_dim, x_dim, y_dim);
}
