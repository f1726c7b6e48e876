// Device scratch that an entry point keeps from one call to the next: grown on demand (its old
// contents are not kept), freed at exit. The shipped baselines take their temporaries from it.
//
// Why not cudaMalloc / cudaFree inside every call: the call is what is timed, and the allocator's
// host work (cudaFree synchronizes the device and unmaps the pages) depends on the host CPU and the
// driver, not on the GPU. On the H200 the large sweep's prefix_sum, batch_norm, layer_norm and
// rms_norm baselines, which did that, ran 7-33% slower on another lease at the same device time
// (docs/results/h200/reruns/claim_rerun_large_2694f7b.md), moving every P measured against them.
// A caching allocator is what real code uses (the vendor contenders' workspace does the same).
//
//   static mskb_scratch::Buffer<float> g_tmp;   // one per temporary, at namespace scope
//   float* tmp = g_tmp.get(n, "prefix_sum");    // at least n floats; ends the process if it cannot
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace mskb_scratch {

template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (ptr_) cudaFree(ptr_);
  }

  // At least `count` elements of device memory. A failed cudaMalloc is not survivable for a
  // baseline (it would launch on a null pointer): it says so on stderr, naming `who`, and aborts.
  T* get(size_t count, const char* who) {
    if (count > count_) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = nullptr;
      count_ = 0;
      const cudaError_t err = cudaMalloc(&ptr_, count * sizeof(T));
      if (err != cudaSuccess) {
        std::fprintf(stderr, "%s: cannot allocate %zu bytes of scratch: %s\n", who, count * sizeof(T),
                     cudaGetErrorString(err));
        std::abort();
      }
      count_ = count;
    }
    return ptr_;
  }

 private:
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

}  // namespace mskb_scratch
