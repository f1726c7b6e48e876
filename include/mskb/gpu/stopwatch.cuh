// The runner's clock helpers (verifier and candidate): seconds since a steady-clock point, and
// seconds as whole milliseconds for the GPU lock's hold log labels.
#pragma once

#include <chrono>
#include <cmath>
#include <string>

namespace mskb::gpu {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
inline std::string ms(double seconds) { return std::to_string(static_cast<long long>(std::llround(seconds * 1e3))); }

}  // namespace mskb::gpu
