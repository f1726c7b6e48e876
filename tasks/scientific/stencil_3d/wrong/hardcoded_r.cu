// mskb-expect: wrong_result
// mskb-precision: fp32
// Shortcut: hard-codes the paper's r = 0.25 (u_new = -0.5*u + 0.25*(sum of the 6 neighbours)) instead of
// reading the argument. Exact on every paper size; the held-out inputs marked rand_r use other r.
#include <cuda_runtime.h>

__global__ void step(float* u_new, const float* u_old, int nx, int ny, int nz) {
  const long long total = static_cast<long long>(nx) * ny * nz;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const long long k = idx % nz, j = (idx / nz) % ny, i = idx / (static_cast<long long>(nz) * ny);
  if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) {
    u_new[idx] = u_old[idx];
    return;
  }
  const long long sx = static_cast<long long>(ny) * nz, sy = nz;
  const float nb = u_old[idx - sx] + u_old[idx + sx] + u_old[idx - sy] + u_old[idx + sy] + u_old[idx - 1] + u_old[idx + 1];
  u_new[idx] = 0.25f * nb - 0.5f * u_old[idx];
}

extern "C" void stencil_3d(float* u_new, const float* u_old, float r, int nx, int ny, int nz) {
  (void)r;
  const long long total = static_cast<long long>(nx) * ny * nz;
  if (total <= 0) return;
  step<<<static_cast<unsigned>((total + 255) / 256), 256>>>(u_new, u_old, nx, ny, nz);
  cudaDeviceSynchronize();
}
