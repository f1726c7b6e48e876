// Vendor contender: CUB cub::DeviceTransform::Transform (CCCL, CUDA 13) reading the input through a
// thrust::reverse_iterator (output[i] = input[N - 1 - i]) with an identity functor, on the legacy
// default stream (fp32 and bf16; a copy, so bit exact). This is the engine thrust::reverse_copy
// dispatches to in CCCL 3, called directly: thrust::device is a synchronous policy (Thrust waits on
// the stream after the algorithm), which added a second synchronisation to every call. No library
// serves a reversal better: cuBLAS <t>copy with incx = -1 has no bf16 form.
#include <cub/device/device_transform.cuh>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/reverse_iterator.h>

#include "mskb_vendor.cuh"

namespace {

struct Identity {
  template <class T>
  __device__ __forceinline__ T operator()(T x) const {
    return x;
  }
};

template <class T>
void reverse_copy(T* output, const T* input, int n) {
  if (n > 0) MSKB_VENDOR_CHECK(cub::DeviceTransform::Transform(thrust::make_reverse_iterator(input + n), output, n, Identity{}));
  MSKB_VENDOR_CHECK(cudaDeviceSynchronize());
}

}  // namespace

extern "C" void reverse_array(float* output, float* input, int N) { reverse_copy<float>(output, input, N); }

extern "C" void reverse_array_bf16(__nv_bfloat16* output, __nv_bfloat16* input, int N) { reverse_copy<__nv_bfloat16>(output, input, N); }
