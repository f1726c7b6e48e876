// Vendor contender. fp32: cuBLAS cublasSdot with device pointer mode (the result is written straight
// into the device scalar). bf16: cuBLAS has no bf16 dot with an FP32 result (cublasDotEx returns a bf16
// scalar for bf16 inputs, rounding it to 8 bits), and the previous 1x1xN cublasGemmEx reached only 0.32
// of the bandwidth roofline on the H200 (a GEMM kernel with one output). bf16 therefore uses CUB:
// cub::DeviceReduce::TransformReduce over a counting iterator whose transform reads X[i], Y[i], widens
// them and returns the FP32 product; the FP32 sum is written straight into *loss (loss is zeroed by the
// caller; it is overwritten, not accumulated). The temporary storage size is queried once per N and the
// storage is the process-wide vendor workspace (grown once, reused).
// mskb-link: cublas
#include <cublas_v2.h>
#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>

#include "mskb_vendor.cuh"

namespace {

struct ProductBf16 {
  const __nv_bfloat16* x;
  const __nv_bfloat16* y;
  __device__ __forceinline__ float operator()(long long i) const { return __bfloat162float(x[i]) * __bfloat162float(y[i]); }
};

}  // namespace

extern "C" void dot_product(float* loss, const float* X, const float* Y, const int N) {
  cublasHandle_t h = mskb_vendor::cublas();
  MSKB_VENDOR_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));  // this library's handle: no one else uses it
  MSKB_VENDOR_CHECK(cublasSdot(h, N, X, 1, Y, 1, loss));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

extern "C" void dot_product_bf16(float* loss, const __nv_bfloat16* X, const __nv_bfloat16* Y, const int N) {
  if (N > 0) {
    const thrust::counting_iterator<long long> first(0);
    const ProductBf16 op{X, Y};
    const long long n = N;
    static long long cached_n = -1;  // the size query depends on N only: once per N
    static size_t bytes = 0;
    if (n != cached_n) {
      MSKB_VENDOR_CHECK(cub::DeviceReduce::TransformReduce(nullptr, bytes, first, loss, n, ::cuda::std::plus<float>{}, op, 0.0f));
      cached_n = n;
    }
    void* tmp = mskb_vendor::workspace().get(bytes > 0 ? bytes : 1);
    MSKB_VENDOR_CHECK(cub::DeviceReduce::TransformReduce(tmp, bytes, first, loss, n, ::cuda::std::plus<float>{}, op, 0.0f));
  }
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
