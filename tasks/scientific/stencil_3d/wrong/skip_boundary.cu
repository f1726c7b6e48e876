// mskb-expect: unwritten_output
// mskb-precision: fp32 bf16
// Shortcut: updates only the interior and never copies the boundary faces into u_new (as if u_new
// already held u_old). The harness poisons u_new before the call, so every boundary point stays NaN.
// The interior update itself is exact, so the kernel would pass if the boundary were pre-filled.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

template <class T>
__device__ float ld(const T* p, long long q);
template <>
__device__ float ld<float>(const float* p, long long q) { return p[q]; }
template <>
__device__ float ld<__nv_bfloat16>(const __nv_bfloat16* p, long long q) { return __bfloat162float(p[q]); }
__device__ void st(float* p, long long q, float v) { p[q] = v; }
__device__ void st(__nv_bfloat16* p, long long q, float v) { p[q] = __float2bfloat16(v); }

template <class T>
__global__ void interior_only(T* u_new, const T* u_old, float r, int nx, int ny, int nz) {
  const long long total = static_cast<long long>(nx) * ny * nz;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const long long k = idx % nz, j = (idx / nz) % ny, i = idx / (static_cast<long long>(nz) * ny);
  if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) return;  // the shortcut
  const long long sx = static_cast<long long>(ny) * nz, sy = nz;
  const float c = ld(u_old, idx);
  const float nb = ld(u_old, idx - sx) + ld(u_old, idx + sx) + ld(u_old, idx - sy) + ld(u_old, idx + sy) +
                   ld(u_old, idx - 1) + ld(u_old, idx + 1);
  st(u_new, idx, c + r * (nb - 6.0f * c));
}

template <class T>
static void launch(T* u_new, const T* u_old, float r, int nx, int ny, int nz) {
  const long long total = static_cast<long long>(nx) * ny * nz;
  if (total <= 0) return;
  const long long blocks = (total + 255) / 256;
  interior_only<T><<<static_cast<unsigned>(blocks), 256>>>(u_new, u_old, r, nx, ny, nz);
  cudaDeviceSynchronize();
}

extern "C" void stencil_3d(float* u_new, const float* u_old, float r, int nx, int ny, int nz) {
  launch(u_new, u_old, r, nx, ny, nz);
}
extern "C" void stencil_3d_bf16(__nv_bfloat16* u_new, const __nv_bfloat16* u_old, float r, int nx, int ny, int nz) {
  launch(u_new, u_old, r, nx, ny, nz);
}
