#include <cstdio>

#include "mskb/gpu/check.cuh"

namespace mskb::gpu {

void throw_cuda_error(cudaError_t e, const char* expr, const char* file, int line) {
  throw CudaError(e, std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " +
                         cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

void log_cuda_error(cudaError_t e, const char* expr, const char* file, int line) noexcept {
  std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, cudaGetErrorName(e));
}

}  // namespace mskb::gpu
