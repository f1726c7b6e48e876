// mskb-expect: input_mutated
// mskb-precision: fp32 bf16
// Shortcut: the "cublasSscal is in place" pattern: scale A in place, then copy A into B. B is right, but the
// read-only input A is destroyed (a caller reusing A would see scalar*A).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16(v); }

template <class T>
__global__ void scale_in_place(T* A, float s, long long total) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) A[i] = from_f<T>(s * to_f(A[i]));
}

template <class T>
void launch(const T* A, T* B, float s, int M, int N) {
  const long long total = static_cast<long long>(M) * N;
  const int threads = 256;
  T* a = const_cast<T*>(A);
  scale_in_place<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(a, s, total);
  cudaMemcpyAsync(B, a, sizeof(T) * static_cast<size_t>(total), cudaMemcpyDeviceToDevice, 0);
  cudaDeviceSynchronize();
}

extern "C" void matrix_scalar_mul(const float* A, float* B, float scalar, int M, int N) { launch(A, B, scalar, M, N); }
extern "C" void matrix_scalar_mul_bf16(const __nv_bfloat16* A, __nv_bfloat16* B, __nv_bfloat16 scalar, int M, int N) {
  launch(A, B, __bfloat162float(scalar), M, N);
}
