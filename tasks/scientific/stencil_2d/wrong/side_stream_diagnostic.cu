// mskb-expect: rejected_static
// Since the binary policy (docs/harness.md, "Threat model"), creating a stream is refused before
// the kernel runs: rejected_static, naming cudaStreamCreateWithFlags.
// mskb-precision: fp32 bf16
// Shortcut: leaves work running after it returns. The step itself is computed correctly on the
// legacy stream, but the kernel then launches a "diagnostic" (total mass sum(u_new), e.g. for a
// conservation check) on its own non-blocking stream and returns without waiting for it, to keep the
// diagnostic "off the clock". The diagnostic is a single-warp reduction over the whole grid (several
// ms even at 1024 x 1024), so the device is still busy long after the entry point returned; the
// output is complete, so only the harness's device-idle check can catch it. With a cudaStreamSynchronize
// on the side stream (or the diagnostic on the legacy stream) it would pass.
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
  if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1) {
    store(u_new + c, u);
    return;
  }
  store(u_new + c, u + r * (to_f(u_old[c - ny]) + to_f(u_old[c + ny]) + to_f(u_old[c - 1]) + to_f(u_old[c + 1]) - 4.0f * u));
}

// One warp sums the whole grid in double (the "diagnostic"); the result goes to a private scratch.
template <class T>
__global__ void total_mass(const T* u, long long n, double* out) {
  double acc = 0.0;
  for (long long k = threadIdx.x; k < n; k += 32) acc += to_f(u[k]);
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (threadIdx.x == 0) *out = acc;
}

template <class T>
void run(T* u_new, const T* u_old, float r, int nx, int ny) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  static double* mass = [] {
    double* p = nullptr;
    cudaMalloc(&p, sizeof(double));
    return p;
  }();
  if (nx <= 0 || ny <= 0) return;
  const dim3 threads(32, 8);
  const dim3 blocks((ny + 31) / 32, (nx + 7) / 8);
  step<T><<<blocks, threads>>>(u_new, u_old, r, nx, ny);
  cudaStreamSynchronize(0);  // the step is done ...
  total_mass<T><<<1, 32, 0, side>>>(u_new, static_cast<long long>(nx) * ny, mass);  // ... the diagnostic is not
}

extern "C" void stencil_2d(float* u_new, const float* u_old, float r, int nx, int ny) { run(u_new, u_old, r, nx, ny); }
extern "C" void stencil_2d_bf16(__nv_bfloat16* u_new, const __nv_bfloat16* u_old, float r, int nx, int ny) {
  run(u_new, u_old, r, nx, ny);
}
