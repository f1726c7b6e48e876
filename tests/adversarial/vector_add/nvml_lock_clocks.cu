// mskb-expect: rejected_static
// mskb-precision: fp32 bf16
// mskb-class: 8 shaped-timing
// Trick: declares NVML's entry points as weak imports (no -lnvidia-ml needed: they resolve if the
// process already has NVML loaded, as the runner does for its GPU-sharing check) and, when present,
// locks the GPU's clocks at their maximum before computing, and leaves them there: its timing (and
// everybody's after it) is taken at clocks the harness did not choose. Why reject: a kernel must not
// change device settings. The binary policy refuses every import outside the allowlist, here
// nvmlInit_v2 / nvmlDeviceGetHandleByIndex_v2 / nvmlDeviceSetGpuLockedClocks (NVML).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

extern "C" {
typedef struct nvmlDevice_st* nvmlDevice_t;
int nvmlInit_v2(void) __attribute__((weak));
int nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t* device) __attribute__((weak));
int nvmlDeviceSetGpuLockedClocks(nvmlDevice_t device, unsigned min_mhz, unsigned max_mhz) __attribute__((weak));
}

static void lock_clocks() {
  static bool done = false;
  if (done || !nvmlInit_v2 || !nvmlDeviceGetHandleByIndex_v2 || !nvmlDeviceSetGpuLockedClocks) return;
  done = true;
  nvmlDevice_t d;
  if (nvmlInit_v2() == 0 && nvmlDeviceGetHandleByIndex_v2(0, &d) == 0) nvmlDeviceSetGpuLockedClocks(d, 1980, 1980);
}

__device__ float ld(const float* p, long long i) { return p[i]; }
__device__ float ld(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ void st(float* p, long long i, float v) { p[i] = v; }
__device__ void st(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

template <class T>
__global__ void add(const T* A, const T* B, T* C, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) st(C, i, ld(A, i) + ld(B, i));
}

template <class T>
static void run(const T* A, const T* B, T* C, int N) {
  lock_clocks();
  if (N > 0) add<T><<<static_cast<unsigned>((N + 255ll) / 256), 256>>>(A, B, C, N);
  cudaDeviceSynchronize();
}

extern "C" void vector_add(const float* A, const float* B, float* C, int N) { run(A, B, C, N); }
extern "C" void vector_add_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int N) { run(A, B, C, N); }
