// Naive baseline: one thread per output element C[a,b,c] (c fastest), plain FP32 loops over x and y;
// 64-bit indices.
#include <cuda_runtime.h>

__global__ void contract_kernel(const float* A, const float* B, float* C, int ad, int bd, int cd, int xd, int yd) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(ad) * bd * cd) return;
  const long long c = idx % cd, b = (idx / cd) % bd, a = idx / (static_cast<long long>(cd) * bd);
  float acc = 0.0f;
  for (int x = 0; x < xd; ++x) {
    const float* arow = A + ((a * xd + x) * bd + b) * yd;
    const float* brow = B + (static_cast<long long>(x) * cd + c) * yd;
    for (int y = 0; y < yd; ++y) acc += arow[y] * brow[y];
  }
  C[idx] = acc;
}

extern "C" void high_order_contraction(const float* A, const float* B, float* C, int a_dim, int b_dim, int c_dim, int x_dim,
                                       int y_dim) {
  const long long total = static_cast<long long>(a_dim) * b_dim * c_dim;
  const int threads = 256;
  contract_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(A, B, C, a_dim, b_dim, c_dim, x_dim, y_dim);
  cudaDeviceSynchronize();
}
