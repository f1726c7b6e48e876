// Naive baseline: one thread per grid point (flattened 64-bit index); loads bf16, computes the 7-point
// update in FP32, stores bf16 once; boundary points copy u_old bit for bit. Layout u[(i*ny + j)*nz + k].
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void stencil_3d_bf16_kernel(__nv_bfloat16* u_new, const __nv_bfloat16* u_old, float r, int nx, int ny, int nz) {
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
  auto at = [&](long long q) { return __bfloat162float(u_old[q]); };
  const float c = at(idx);
  const float nb = at(idx - sx) + at(idx + sx) + at(idx - sy) + at(idx + sy) + at(idx - 1) + at(idx + 1);
  u_new[idx] = __float2bfloat16(c + r * (nb - 6.0f * c));
}

extern "C" void stencil_3d_bf16(__nv_bfloat16* u_new, const __nv_bfloat16* u_old, float r, int nx, int ny, int nz) {
  const long long total = static_cast<long long>(nx) * ny * nz;
  if (total <= 0) return;
  const int threads = 256;
  const long long blocks = (total + threads - 1) / threads;
  stencil_3d_bf16_kernel<<<static_cast<unsigned>(blocks), threads>>>(u_new, u_old, r, nx, ny, nz);
  cudaDeviceSynchronize();
}
