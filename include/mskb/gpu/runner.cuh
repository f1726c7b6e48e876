// Owns the child-process side of an evaluation (see mskb/protocol.hpp for the contract).
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "mskb/harness/protocol.hpp"

namespace mskb::gpu {

// A condition that ends an evaluation with a disposition (sticky CUDA error, OOM, missing entry).
struct CandidateFatal : std::runtime_error {
  std::string disposition;
  CandidateFatal(std::string d, const std::string& m) : std::runtime_error(m), disposition(std::move(d)) {}
};

// The candidate process (`mskb-runner --candidate FD`): serves the verifier's requests on the
// channel FD (mskb/channel.hpp); the only process that loads the kernel library.
int run_candidate(int channel_fd);

// Profile mode, in this process (no verdict: ncu measures one call). Returns the "profiled" event.
nlohmann::json run_profile(const RunRequest& req, const std::function<void(const nlohmann::json&)>& emit);

// The verifier: runs `req`, streaming JSON lines to `report_fd`; for an evaluation it starts the
// candidate process and judges what comes back. Returns the process exit code.
int run_child(const RunRequest& req, int report_fd);

// Measures the device's ceilings: DRAM bandwidth (large D2D copy, bytes read + written),
// FP32 peak (cublasSgemm, FP32 math) and BF16 peak (cublasGemmEx, FP32 compute). Event "device".
nlohmann::json measure_device();
// Name, UUID and properties only (event "device" without ceilings); fast.
nlohmann::json identify_device();

}  // namespace mskb::gpu
