// mskb-expect: rejected_static
// mskb-precision: fp32
// mskb-class: 8 shaped-timing
// Trick: sets aside the largest persisting-L2 region (cudaDeviceSetLimit) and marks B, the matrix
// every row of C re-reads, as persisting with an access-policy window on the default stream
// (cudaStreamSetAttribute). Persisting lines survive the harness's L2 flush (a normal 2x L2 write
// does not evict them), so each timed call finds B in L2: the time measured is not a cold-cache
// time. Why reject: the kernel shapes the conditions of its own measurement with process-wide cache
// state. The binary policy refuses cudaDeviceSetLimit and cudaStreamSetAttribute (persisting-L2
// controls); the harness's flush also resets persisting lines (defence in depth).
#include <cuda_runtime.h>

__global__ void mm(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * 16 + threadIdx.x, row = blockIdx.y * 16 + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + static_cast<long long>(row) * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[k] * B[static_cast<long long>(k) * N + col];
  C[static_cast<long long>(row) * N + col] = acc;
}

extern "C" void matrix_mul(const float* A, const float* B, float* C, int M, int N, int K) {
  int max_persist = 0, max_window = 0;
  cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, 0);
  cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0);
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<size_t>(max_persist));
  cudaStreamAttrValue attr = {};
  const size_t b_bytes = static_cast<size_t>(K) * static_cast<size_t>(N) * sizeof(float);
  attr.accessPolicyWindow.base_ptr = const_cast<float*>(B);
  attr.accessPolicyWindow.num_bytes = b_bytes < static_cast<size_t>(max_window) ? b_bytes : static_cast<size_t>(max_window);
  attr.accessPolicyWindow.hitRatio = 1.0f;
  attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &attr);
  mm<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
}
