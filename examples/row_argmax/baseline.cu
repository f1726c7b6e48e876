// Baseline of row_argmax: one block of 256 threads per row (grid-stride over the rows). Each thread
// keeps the first maximum of its strided share of the row; a shared-memory tree then keeps the
// larger value and, on equal values, the smaller index: the row's first maximum.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__device__ inline bool better(float v, long long i, float best_v, long long best_i) {
  return v > best_v || (v == best_v && i < best_i);
}

__global__ void row_argmax_kernel(const __half* x, float* vmax, long long* idx, int M, int N) {
  __shared__ float sv[kThreads];
  __shared__ long long si[kThreads];
  for (long long r = blockIdx.x; r < M; r += gridDim.x) {
    const __half* row = x + r * N;
    float best_v = -INFINITY;
    long long best_i = N;  // none yet: loses to every element
    for (long long j = threadIdx.x; j < N; j += kThreads) {
      const float v = __half2float(row[j]);
      if (v > best_v) {
        best_v = v;
        best_i = j;
      }
    }
    sv[threadIdx.x] = best_v;
    si[threadIdx.x] = best_i;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s /= 2) {
      if (threadIdx.x < s && better(sv[threadIdx.x + s], si[threadIdx.x + s], sv[threadIdx.x], si[threadIdx.x])) {
        sv[threadIdx.x] = sv[threadIdx.x + s];
        si[threadIdx.x] = si[threadIdx.x + s];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      vmax[r] = sv[0];
      idx[r] = si[0];
    }
    __syncthreads();  // the next row reuses sv and si
  }
}

extern "C" void row_argmax(const __half* x, float* vmax, long long* idx, int M, int N) {
  row_argmax_kernel<<<M < 65535 ? M : 65535, kThreads>>>(x, vmax, idx, M, N);
  cudaDeviceSynchronize();
}
