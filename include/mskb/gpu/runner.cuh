// Owns the child-process side of an evaluation (the contract: mskb/protocol/request.hpp and
// mskb/protocol/events.hpp).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "mskb/gpu/candidate_fatal.cuh"
#include "mskb/protocol/events.hpp"
#include "mskb/protocol/request.hpp"
#include "mskb/protocol/vocabulary.hpp"
#include "mskb/util/device_probe.hpp"

namespace mskb::gpu {

// The candidate process (`mskb-runner --candidate FD`): serves the verifier's requests on the
// channel FD (mskb/channel.hpp); the only process that loads the kernel library.
int run_candidate(int channel_fd);

// Profile mode, in this process (no verdict: ncu measures one call): its phases go to `events`;
// returns the "profiled" event.
ProfiledEvent run_profile(const RunRequest& req, const EventWriter& events);

// The verifier: runs `req`, streaming JSON lines to `report_fd`; for an evaluation it starts the
// candidate process and judges what comes back. Returns the process exit code.
int run_child(const RunRequest& req, int report_fd);

// Measures the device's ceilings: DRAM bandwidth (large D2D copy, bytes read + written),
// FP32 peak (cublasSgemm, FP32 math) and BF16 peak (cublasGemmEx, FP32 compute). Event "device".
DeviceEvent measure_device();
// Name, UUID and properties only (event "device" without ceilings); fast.
DeviceEvent identify_device();
// After a device query failed with `failed`: the facts that tell why (mskb/util/device_probe.hpp).
DeviceProbe probe_device(cudaError_t failed);

}  // namespace mskb::gpu
