// mskb-expect: wrong_result
// mskb-precision: fp32
// mskb-class: 5 check-vs-run
// mskb-gate: timing
// Trick: the first three calls of a shape (what `mskb check` makes: its seeds) use the whole K
// loop; later calls of the same shape (warm-up, timing) stop after K/8, an 8x "speed-up" with a
// result that is plausible in magnitude but wrong. Passes `mskb check`, fails only where the
// timed outputs are compared. Why reject: the harness must judge the calls it times: the verifier
// checks the outputs of randomly chosen timed samples, not only the check seeds: wrong_result.
#include <cuda_runtime.h>

#include <map>
#include <tuple>

__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K, int kmax) {
  const int col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + static_cast<long long>(row) * K;
  float acc = 0.0f;
  for (int k = 0; k < kmax; ++k) acc += a[k] * B[static_cast<long long>(k) * N + col];
  C[static_cast<long long>(row) * N + col] = acc * (static_cast<float>(K) / static_cast<float>(kmax > 0 ? kmax : 1));
}

extern "C" void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) {
  static std::map<std::tuple<int, int, int>, int> calls;
  const bool timed = ++calls[{M, N, K}] > 3;
  const int kmax = timed ? (K + 7) / 8 : K;
  mm<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K, kmax);
  cudaDeviceSynchronize();
}
