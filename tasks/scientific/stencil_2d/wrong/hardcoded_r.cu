// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: hard-codes the paper's r = 0.25 instead of reading the argument (and, with 4r = 1, folds the
// update to u_new = (N + S + E + W) / 4). Exact on every paper size; the held-out inputs use other r.
#include <cuda_runtime.h>

__global__ void step(float* u_new, const float* u_old, int nx, int ny) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  const long long c = static_cast<long long>(i) * ny + j;
  if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1)
    u_new[c] = u_old[c];
  else
    u_new[c] = 0.25f * (u_old[c - ny] + u_old[c + ny] + u_old[c - 1] + u_old[c + 1]);
}

extern "C" void stencil_2d(float* u_new, const float* u_old, float r, int nx, int ny) {
  (void)r;
  const dim3 threads(32, 8);
  const dim3 blocks((ny + 31) / 32, (nx + 7) / 8);
  if (nx > 0 && ny > 0) step<<<blocks, threads>>>(u_new, u_old, nx, ny);
  cudaDeviceSynchronize();
}
