// The device's launch floor (`mskb device`, "launch_floor_us" in the device JSON): the time of an
// entry point that does nothing but what every ABI call does at least once - launch one empty
// kernel and synchronize - as the harness times entry points (host wall time around the call).
// A contender's time within a small factor of it measures launch overhead, not the kernel
// (reports mark such shapes launch-bound).
#pragma once

namespace mskb::gpu {

// Median over `reps` calls (after warm-up) of launch-one-empty-kernel + cudaDeviceSynchronize,
// in microseconds, on the current device.
double measure_launch_floor_us(int reps = 2000);

}  // namespace mskb::gpu
