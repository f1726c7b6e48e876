// Owns the child-process side of an evaluation (see mskb/protocol.hpp for the contract).
#pragma once

#include <nlohmann/json.hpp>

#include "mskb/protocol.hpp"

namespace mskb::gpu {

// Runs `req`, streaming JSON lines to `report_fd`; returns the process exit code.
int run_child(const RunRequest& req, int report_fd);

// Measures the device's ceilings: DRAM bandwidth (large D2D copy, bytes read + written),
// FP32 peak (cublasSgemm, FP32 math) and BF16 peak (cublasGemmEx, FP32 compute). Event "device".
nlohmann::json measure_device();
// Name, UUID and properties only (event "device" without ceilings); fast.
nlohmann::json identify_device();

}  // namespace mskb::gpu
