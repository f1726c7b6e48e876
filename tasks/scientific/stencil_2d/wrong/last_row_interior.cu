// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// Shortcut: an off-by-one in the interior test (i < nx instead of i < nx - 1) treats the last row as
// interior, so its update reads the row below it, one row past the end of u_old. The harness's guard
// zone after u_old holds NaN, so the last row of u_new comes out NaN (with a readable row there, it
// would still be wrong: the boundary must be copied).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float* p, float v) { *p = v; }
__device__ __forceinline__ void store(__nv_bfloat16* p, float v) { *p = __float2bfloat16(v); }

template <class T>
__global__ void step(T* u_new, const T* u_old, float r, int nx, int ny) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  const long long c = static_cast<long long>(i) * ny + j;
  const float u = to_f(u_old[c]);
  if (i > 0 && i < nx && j > 0 && j < ny - 1)  // bug: should be i < nx - 1
    store(u_new + c, u + r * (to_f(u_old[c - ny]) + to_f(u_old[c + ny]) + to_f(u_old[c - 1]) + to_f(u_old[c + 1]) - 4.0f * u));
  else
    store(u_new + c, u);
}

template <class T>
void run(T* u_new, const T* u_old, float r, int nx, int ny) {
  const dim3 threads(32, 8);
  const dim3 blocks((ny + 31) / 32, (nx + 7) / 8);
  if (nx > 0 && ny > 0) step<T><<<blocks, threads>>>(u_new, u_old, r, nx, ny);
  cudaDeviceSynchronize();
}

extern "C" void stencil_2d(float* u_new, const float* u_old, float r, int nx, int ny) { run(u_new, u_old, r, nx, ny); }
extern "C" void stencil_2d_bf16(__nv_bfloat16* u_new, const __nv_bfloat16* u_old, float r, int nx, int ny) {
  run(u_new, u_old, r, nx, ny);
}
