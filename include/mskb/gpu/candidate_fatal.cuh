// Owns how an evaluation ends early with a disposition, shared by every role of the runner
// (verifier, candidate, the I/O between them): CandidateFatal and the disposition of a CUDA error.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "mskb/protocol/vocabulary.hpp"

namespace mskb::gpu {

// A condition that ends an evaluation with a disposition (sticky CUDA error, OOM, missing entry).
struct CandidateFatal : std::runtime_error {
  Disposition disposition;
  CandidateFatal(Disposition d, const std::string& m) : std::runtime_error(m), disposition(d) {}
};

// The disposition of a CUDA error a kernel left behind.
inline Disposition disposition_for(cudaError_t e) {
  return e == cudaErrorMemoryAllocation ? Disposition::out_of_memory : Disposition::launch_error;
}

}  // namespace mskb::gpu
