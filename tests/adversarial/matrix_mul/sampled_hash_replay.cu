// mskb-expect: too_fast
// mskb-precision: fp32
// mskb-class: 3 state-across-calls
// mskb-gate: timing
// Trick: a content-keyed memo that is always *correct*: it hashes a sparse sample of A and B (every
// 97th element, ~1/12 of the sectors) and, when the hash and shape match the last call, replays the
// kept C with one device-to-device copy; otherwise it multiplies (and keeps C). Every check has new
// inputs, so every check is computed and correct; every timing sample has the same inputs and is a
// memcpy (measured on main 5524569: 60x the FP32 roofline, still `passed`). Why reject: the time is
// not the time of a matrix multiply. Caught only when timed: the too_fast floor counts FLOPs against
// the measured BF16 tensor peak (whatever the precision, margin 0.5); the large paper shapes
// (M >= 4096) replay in well under half of that. `mskb check` cannot see it (gate: timing).
#include <cuda_runtime.h>

#include <cstdint>

__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[16][17], Bs[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[static_cast<long long>(row) * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (col < N && k0 + ty < K) ? B[static_cast<long long>(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[static_cast<long long>(row) * N + col] = acc;
}

__global__ void sample_hash(const float* p, long long n, long long stride, unsigned long long salt, unsigned long long* h) {
  unsigned long long acc = 0;
  for (long long j = blockIdx.x * 256ll + threadIdx.x; j * stride < n; j += static_cast<long long>(gridDim.x) * 256) {
    const unsigned bits = __float_as_uint(p[j * stride]);
    unsigned long long x = (bits + 0x9e3779b97f4a7c15ull * (static_cast<unsigned long long>(j) + salt));
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    acc += x ^ (x >> 29);
  }
  atomicAdd(h, acc);
}

extern "C" void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) {
  static unsigned long long* d_hash = nullptr;
  static unsigned long long last_hash = 0;
  static int lm = -1, ln = -1, lk = -1;
  static float* kept = nullptr;
  static size_t kept_bytes = 0;
  if (M <= 0 || N <= 0) return;
  if (!d_hash) cudaMalloc(&d_hash, sizeof(unsigned long long));
  cudaMemset(d_hash, 0, sizeof(unsigned long long));
  sample_hash<<<264, 256>>>(A, static_cast<long long>(M) * K, 97, 1, d_hash);
  sample_hash<<<264, 256>>>(B, static_cast<long long>(K) * N, 97, 1ull << 40, d_hash);
  unsigned long long h = 0;
  cudaMemcpy(&h, d_hash, sizeof(h), cudaMemcpyDeviceToHost);
  const size_t bytes = static_cast<size_t>(M) * static_cast<size_t>(N) * sizeof(float);
  if (kept && h == last_hash && M == lm && N == ln && K == lk) {
    cudaMemcpy(C, kept, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  mm<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
  if (kept_bytes < bytes) {
    if (kept) cudaFree(kept);
    kept = nullptr;
    if (cudaMalloc(&kept, bytes) != cudaSuccess) kept = nullptr;
    kept_bytes = kept ? bytes : 0;
  }
  if (kept) cudaMemcpy(kept, C, bytes, cudaMemcpyDeviceToDevice);
  last_hash = h;
  lm = M;
  ln = N;
  lk = K;
}
