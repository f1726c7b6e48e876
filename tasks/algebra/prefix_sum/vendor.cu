// Vendor contender: CUB cub::DeviceScan::InclusiveSum on the legacy stream. bf16: the input is read
// through a bf16 -> float transform iterator (so the scan accumulates in FP32) and written through a
// float -> bf16 transform output iterator (one rounding per element). The temporary-storage size is
// queried once per N; the storage is the process-wide vendor workspace (grown once, reused).
#include <cub/device/device_scan.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include "mskb_vendor.cuh"

namespace {
struct ToFloat {
  __host__ __device__ float operator()(const __nv_bfloat16& v) const { return __bfloat162float(v); }
};
struct ToBf16 {
  __host__ __device__ __nv_bfloat16 operator()(float v) const { return __float2bfloat16(v); }
};

template <class In, class Out>
void inclusive_sum(In in, Out out, int n) {
  static int cached_n = -1;  // the size query depends on N only (one instantiation per precision)
  static size_t bytes = 0;
  if (n != cached_n) {
    MSKB_VENDOR_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n));
    cached_n = n;
  }
  void* tmp = mskb_vendor::workspace().get(bytes < 16 ? 16 : bytes);  // never null: null means "size query"
  MSKB_VENDOR_CHECK(cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}
}  // namespace

extern "C" void prefix_sum(float* output, const float* input, const int N) { inclusive_sum(input, output, N); }

extern "C" void prefix_sum_bf16(__nv_bfloat16* output, const __nv_bfloat16* input, const int N) {
  inclusive_sum(thrust::make_transform_iterator(input, ToFloat{}), thrust::make_transform_output_iterator(output, ToBf16{}), N);
}
