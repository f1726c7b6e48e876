// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: assumes x_dim == y_dim (true for every paper shape) and runs the inner loop to x_dim instead of
// y_dim (strides are right). For y_dim > x_dim terms are dropped, for y_dim < x_dim neighbouring elements
// are added in: wrong on the held-out shapes with x_dim != y_dim.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void contract_square_xy(const T* A, const T* B, T* C, int ad, int bd, int cd, int xd, int yd) {
  const long long total = static_cast<long long>(ad) * bd * cd;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const long long c = idx % cd, b = (idx / cd) % bd, a = idx / (static_cast<long long>(cd) * bd);
  const long long na = static_cast<long long>(ad) * xd * bd * yd, nb = static_cast<long long>(xd) * cd * yd;
  float acc = 0.0f;
  for (int x = 0; x < xd; ++x)
    for (int y = 0; y < xd; ++y) {  // should be y < yd
      const long long ia = ((a * xd + x) * bd + b) * yd + y, ib = (static_cast<long long>(x) * cd + c) * yd + y;
      if (ia < na && ib < nb) acc += to_f(A[ia]) * to_f(B[ib]);
    }
  store(C + idx, acc);
}

template <class T>
void launch(const T* A, const T* B, T* C, int ad, int bd, int cd, int xd, int yd) {
  const long long total = static_cast<long long>(ad) * bd * cd;
  contract_square_xy<<<static_cast<unsigned>((total + 255) / 256), 256>>>(A, B, C, ad, bd, cd, xd, yd);
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
