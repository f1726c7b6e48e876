// Ceiling measurements for the roofline (mskb device). Random, non-zero data: tensor cores run
// measurably faster on zeros.
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "mskb/gpu/buffer.cuh"
#include "mskb/gpu/launch_floor.cuh"
#include "mskb/gpu/runner.cuh"
#include "mskb/util/gpu_sharing.hpp"

namespace mskb::gpu {

namespace {

#define MSKB_CUBLAS_CHECK(expr)                                                                        \
  do {                                                                                                 \
    const cublasStatus_t mskb_s_ = (expr);                                                             \
    if (mskb_s_ != CUBLAS_STATUS_SUCCESS)                                                              \
      throw std::runtime_error(std::string(#expr) + " failed: " + cublasGetStatusString(mskb_s_));     \
  } while (0)

class Cublas {
 public:
  Cublas() { MSKB_CUBLAS_CHECK(cublasCreate(&h_)); }
  ~Cublas() { cublasDestroy(h_); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_{};
};

template <class T>
__global__ void fill_random(T* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    p[i] = static_cast<T>(static_cast<float>(x & 0xffff) / 65536.0f - 0.5f);
  }
}

template <class F>
double best_ms(int reps, F&& f) {
  cudaEvent_t a, b;
  MSKB_CUDA_CHECK(cudaEventCreate(&a));
  MSKB_CUDA_CHECK(cudaEventCreate(&b));
  f();  // warm-up
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    MSKB_CUDA_CHECK(cudaEventRecord(a, 0));
    f();
    MSKB_CUDA_CHECK(cudaEventRecord(b, 0));
    MSKB_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    MSKB_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];  // median: a ceiling we can reach, not a lucky sample
}

}  // namespace

DeviceEvent identify_device() {
  int dev = 0;
  MSKB_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  MSKB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  unsigned char bytes[16];
  std::memcpy(bytes, prop.uuid.bytes, sizeof bytes);
  const std::string u = uuid_string(bytes);
  int count = 0;
  MSKB_CUDA_CHECK(cudaGetDeviceCount(&count));
  DeviceEvent d;
  d.name = prop.name;
  d.uuid = u;
  d.sms = prop.multiProcessorCount;
  d.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  d.device_count = count;
  return d;
}

DeviceEvent measure_device() {
  DeviceEvent id = identify_device();
  int dev = 0;
  MSKB_CUDA_CHECK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  MSKB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  int driver = 0, runtime = 0, clock_khz = 0, mem_clock_khz = 0;
  MSKB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  MSKB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  MSKB_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  MSKB_CUDA_CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev));

  // DRAM: 2 x 2 GiB device-to-device copy, counting bytes read plus bytes written.
  const size_t copy_bytes = std::min<size_t>(size_t{2} << 30, prop.totalGlobalMem / 8);
  DeviceMemory src(copy_bytes), dst(copy_bytes);
  MSKB_CUDA_CHECK(cudaMemset(src.get(), 1, copy_bytes));
  const double copy_ms = best_ms(10, [&] { MSKB_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), copy_bytes, cudaMemcpyDeviceToDevice, 0)); });
  const double bw = 2.0 * static_cast<double>(copy_bytes) / (copy_ms * 1e-3);

  Cublas h;
  const int n = 8192;
  const size_t nn = static_cast<size_t>(n) * n;
  double fp32_flops, bf16_flops;
  {
    DeviceMemory a(nn * 4), b(nn * 4), c(nn * 4);
    fill_random<<<1024, 256>>>(static_cast<float*>(a.get()), nn, 1u);
    fill_random<<<1024, 256>>>(static_cast<float*>(b.get()), nn, 2u);
    MSKB_CUDA_CHECK(cudaGetLastError());
    MSKB_CUBLAS_CHECK(cublasSetMathMode(h.get(), CUBLAS_PEDANTIC_MATH));  // true FP32, no TF32
    const float one = 1.f, zero = 0.f;
    const double ms = best_ms(5, [&] {
      MSKB_CUBLAS_CHECK(cublasSgemm(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, static_cast<float*>(a.get()), n,
                                    static_cast<float*>(b.get()), n, &zero, static_cast<float*>(c.get()), n));
    });
    fp32_flops = 2.0 * n * static_cast<double>(n) * n / (ms * 1e-3);
  }
  {
    DeviceMemory a(nn * 2), b(nn * 2), c(nn * 2);
    fill_random<<<1024, 256>>>(static_cast<__nv_bfloat16*>(a.get()), nn, 3u);
    fill_random<<<1024, 256>>>(static_cast<__nv_bfloat16*>(b.get()), nn, 4u);
    MSKB_CUDA_CHECK(cudaGetLastError());
    MSKB_CUBLAS_CHECK(cublasSetMathMode(h.get(), CUBLAS_DEFAULT_MATH));
    const float one = 1.f, zero = 0.f;
    const double ms = best_ms(10, [&] {
      MSKB_CUBLAS_CHECK(cublasGemmEx(h.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.get(), CUDA_R_16BF, n, b.get(),
                                     CUDA_R_16BF, n, &zero, c.get(), CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT));
    });
    bf16_flops = 2.0 * n * static_cast<double>(n) * n / (ms * 1e-3);
  }
  MSKB_CUDA_CHECK(cudaDeviceSynchronize());
  DeviceEvent::Ceilings c;
  c.l2_bytes = prop.l2CacheSize;
  c.memory_bytes = static_cast<long long>(prop.totalGlobalMem);
  c.max_sm_clock_mhz = clock_khz / 1000;
  c.memory_clock_mhz = mem_clock_khz / 1000;
  c.driver_version = driver;
  c.runtime_version = runtime;
  c.dram_bandwidth_gbs = bw / 1e9;
  c.fp32_tflops = fp32_flops / 1e12;
  c.bf16_tflops = bf16_flops / 1e12;
  c.method = "D2D cudaMemcpy of 2x" + std::to_string(copy_bytes >> 20) +
             " MiB (read+write bytes), cublasSgemm PEDANTIC 8192^3, cublasGemmEx BF16/FP32-compute 8192^3; medians";
  c.launch_floor_us = measure_launch_floor_us();
  c.method += "; launch floor: an entry point that launches one empty kernel and synchronizes, timed with events like a contender";
  id.ceilings = c;
  return id;
}

}  // namespace mskb::gpu
