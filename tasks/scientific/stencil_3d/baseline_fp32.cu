// Naive baseline: one thread per grid point (flattened 64-bit index); interior points take the 7-point
// update, boundary points copy u_old. Layout u[(i*ny + j)*nz + k].
#include <cuda_runtime.h>

__global__ void stencil_3d_kernel(float* u_new, const float* u_old, float r, int nx, int ny, int nz) {
  const long long total = static_cast<long long>(nx) * ny * nz;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const long long k = idx % nz;
  const long long j = (idx / nz) % ny;
  const long long i = idx / (static_cast<long long>(nz) * ny);
  if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) {
    u_new[idx] = u_old[idx];
    return;
  }
  const long long sx = static_cast<long long>(ny) * nz, sy = nz;
  const float c = u_old[idx];
  const float nb = u_old[idx - sx] + u_old[idx + sx] + u_old[idx - sy] + u_old[idx + sy] + u_old[idx - 1] + u_old[idx + 1];
  u_new[idx] = c + r * (nb - 6.0f * c);
}

extern "C" void stencil_3d(float* u_new, const float* u_old, float r, int nx, int ny, int nz) {
  const long long total = static_cast<long long>(nx) * ny * nz;
  if (total <= 0) return;
  const int threads = 256;
  const long long blocks = (total + threads - 1) / threads;
  stencil_3d_kernel<<<static_cast<unsigned>(blocks), threads>>>(u_new, u_old, r, nx, ny, nz);
  cudaDeviceSynchronize();
}
