// mskb-expect: rejected_static
// mskb-precision: bf16
// mskb-class: 4 work-after-return
// Trick: computes the first half of the output, returns, and lets a detached std::thread finish the
// second half a moment later, hoping the harness's timing closes before the thread's launch while
// the output is complete by the time it is read. Why reject: host threads are work after return.
// The binary policy refuses pthread_create (what std::thread calls).
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <thread>

__global__ void sig(__nv_bfloat16* out, const __nv_bfloat16* in, long long from, long long to) {
  const long long i = from + blockIdx.x * 256ll + threadIdx.x;
  if (i < to) out[i] = __float2bfloat16(1.0f / (1.0f + expf(-__bfloat162float(in[i]))));
}

extern "C" void sigmoid_bf16(__nv_bfloat16* out, const __nv_bfloat16* input, const int N) {
  const long long half = N / 2;
  if (half > 0) sig<<<static_cast<unsigned>((half + 255) / 256), 256>>>(out, input, 0, half);
  cudaDeviceSynchronize();
  std::thread([=] {
    const long long rest = N - half;
    if (rest > 0) sig<<<static_cast<unsigned>((rest + 255) / 256), 256>>>(out, input, half, N);
  }).detach();
}
