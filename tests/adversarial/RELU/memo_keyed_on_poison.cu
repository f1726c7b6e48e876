// mskb-expect: wrong_result
// mskb-precision: fp32 bf16
// mskb-class: 3 state-across-calls
// Trick: reads back two elements of the output buffer before writing (cudaMemcpy device-to-host):
// when they hold the harness's NaN poison, it "knows" it is being re-called by the harness on a
// buffer it has seen (same output pointer and N), and replays the output it kept from the last call
// instead of reading the input. Why reject: state across calls. The second seed of a shape runs on
// the same buffers with new inputs, poisoned outputs, so the replay is the first seed's answer:
// wrong_result.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>

__device__ float ld(const float* p, long long i) { return p[i]; }
__device__ float ld(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ void st(float* p, long long i, float v) { p[i] = v; }
__device__ void st(__nv_bfloat16* p, long long i, float v) { p[i] = __float2bfloat16(v); }

template <class T>
__global__ void relu(T* out, const T* in, int N) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < N) st(out, i, fmaxf(ld(in, i), 0.0f));
}

static bool is_nan(const float* v) { return std::isnan(*v); }
static bool is_nan(const __nv_bfloat16* v) {
  uint16_t b;
  std::memcpy(&b, v, 2);
  return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0;
}

template <class T>
static void run(T* out, const T* in, int N) {
  static void* key = nullptr;
  static int key_n = -1;
  static T* kept = nullptr;
  static size_t kept_n = 0;
  const size_t bytes = static_cast<size_t>(N > 0 ? N : 0) * sizeof(T);
  if (N <= 0) return;
  T probe[2];
  cudaMemcpy(&probe[0], out, sizeof(T), cudaMemcpyDeviceToHost);
  cudaMemcpy(&probe[1], out + (N - 1), sizeof(T), cudaMemcpyDeviceToHost);
  if (is_nan(&probe[0]) && is_nan(&probe[1]) && key == out && key_n == N && kept) {
    cudaMemcpy(out, kept, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  relu<T><<<static_cast<unsigned>((N + 255) / 256), 256>>>(out, in, N);
  if (kept_n < static_cast<size_t>(N)) {
    if (kept) cudaFree(kept);
    cudaMalloc(&kept, bytes);
    kept_n = static_cast<size_t>(N);
  }
  if (kept) cudaMemcpy(kept, out, bytes, cudaMemcpyDeviceToDevice);
  key = out;
  key_n = N;
}

extern "C" void RELU(float* output, const float* input, int N) { run(output, input, N); }
extern "C" void RELU_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, int N) { run(output, input, N); }
