// Owns CUDA error handling for the harness: one macro family. MSKB_CUDA_CHECK clears the sticky
// last error and throws mskb::gpu::CudaError naming file:line and the expression; the _NOEXCEPT
// twin logs instead of throwing (for destructors).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace mskb::gpu {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line);
void log_cuda_error(cudaError_t e, const char* expr, const char* file, int line) noexcept;

}  // namespace mskb::gpu

#define MSKB_CUDA_CHECK(expr)                                                      \
  do {                                                                             \
    const cudaError_t mskb_e_ = (expr);                                            \
    if (mskb_e_ != cudaSuccess) {                                                  \
      (void)cudaGetLastError();                                                    \
      ::mskb::gpu::throw_cuda_error(mskb_e_, #expr, __FILE__, __LINE__);           \
    }                                                                              \
  } while (0)

#define MSKB_CUDA_CHECK_NOEXCEPT(expr)                                             \
  do {                                                                             \
    const cudaError_t mskb_e_ = (expr);                                            \
    if (mskb_e_ != cudaSuccess) {                                                  \
      (void)cudaGetLastError();                                                    \
      ::mskb::gpu::log_cuda_error(mskb_e_, #expr, __FILE__, __LINE__);             \
    }                                                                              \
  } while (0)
