// Naive baseline: one thread per output element C[a,b,c] (c fastest), bf16 loads, FP32 accumulation over
// x and y, one rounding to bf16; 64-bit indices.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void contract_bf16_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int ad, int bd, int cd,
                                     int xd, int yd) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(ad) * bd * cd) return;
  const long long c = idx % cd, b = (idx / cd) % bd, a = idx / (static_cast<long long>(cd) * bd);
  float acc = 0.0f;
  for (int x = 0; x < xd; ++x) {
    const __nv_bfloat16* arow = A + ((a * xd + x) * bd + b) * yd;
    const __nv_bfloat16* brow = B + (static_cast<long long>(x) * cd + c) * yd;
    for (int y = 0; y < yd; ++y) acc += __bfloat162float(arow[y]) * __bfloat162float(brow[y]);
  }
  C[idx] = __float2bfloat16(acc);
}

extern "C" void high_order_contraction_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int a_dim, int b_dim,
                                            int c_dim, int x_dim, int y_dim) {
  const long long total = static_cast<long long>(a_dim) * b_dim * c_dim;
  const int threads = 256;
  contract_bf16_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(A, B, C, a_dim, b_dim, c_dim, x_dim, y_dim);
  cudaDeviceSynchronize();
}
