// Owns the bottleneck classes and how a profile is mapped to one (docs/profiling.md):
//  1. the utilisation of each hardware unit (compute pipes and memory levels, % of peak) is read
//     from the SpeedOfLight / ComputeWorkload / MemoryWorkload metrics;
//  2. Otsu's method splits the units into "high" and "low";
//  3. the top unit's kind is the limiter; when it reaches the busy line (60 % of peak, ncu's own
//     speed-of-light rule) the kernel is compute- or memory-bandwidth-bound, otherwise it is
//     latency-bound, and the warp stall reasons say on what (long scoreboard = memory).
// Without counters, classify_sol() decides from the speed-of-light model and a measured time.
#pragma once

#include <string>
#include <vector>

#include "cudamaster/profile/metrics.hpp"
#include "cudamaster/profile/otsu.hpp"

namespace cudamaster::profile {

enum class Bottleneck { compute, memory_bandwidth, memory_latency };
const char* to_string(Bottleneck b);  // "compute", "memory-bandwidth", "memory-latency"

enum class UnitKind { compute, memory };
const char* to_string(UnitKind k);

// One hardware unit's utilisation, % of its peak.
struct UnitUtilisation {
  std::string label;   // "L2", "FMA pipe"
  std::string metric;  // the ncu metric it was read from
  UnitKind kind = UnitKind::compute;
  double pct = 0;
  bool high = false;   // above the Otsu threshold
};

// A metric that took part in the decision, with why.
struct Evidence {
  std::string metric;
  std::string label;
  double value = 0;
  std::string unit;
  std::string role;  // "top unit", "high unit", "stall", "busy line", "model"
};

struct Classification {
  Bottleneck cls = Bottleneck::memory_latency;
  std::string source = "ncu";  // "ncu" or "sol_model"
  double confidence = 0;       // in (0, 1]: product of the decision margins (docs/profiling.md)
  double threshold = 0;        // Otsu threshold (% of peak); sol_model: the busy line
  double separability = 0;     // Otsu's eta (between / total variance)
  double peak_compute = 0, peak_memory = 0;  // highest unit of each kind, % of peak
  double memory_stall_share = -1;            // memory-dependency stalls / all stalls; -1 without stall metrics
  std::string top_stall;                     // the largest stall reason ("long_scoreboard")
  std::vector<UnitUtilisation> units;
  std::vector<Evidence> evidence;
  std::string reason;  // one sentence for humans and prompts
};

struct ClassifierConfig {
  double busy_pct = 60;         // ncu's SOL rule: below 60 % of peak on every unit suggests latency issues
  double side_full_pp = 25;     // limiter leads the other kind by this many points: fully decisive
  double stall_share_full = 0.75;  // memory stalls at this share of all stalls: fully decisive
};

// Stall reasons read from smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio.
struct StallReason {
  std::string reason;  // "long_scoreboard"
  std::string metric;
  double per_issue = 0;  // warps stalled on this reason per issued instruction
  double share = 0;      // of all stall reasons ("selected" and "not_selected" are not stalls)
  bool memory = false;   // waits on the memory system (long scoreboard, LG/TEX throttle, drain, membar, IMC miss)
};
std::vector<StallReason> stall_reasons(const KernelProfile& k);  // largest first
bool is_memory_stall(const std::string& reason);

// The utilisation units present in `k` (missing metrics are skipped).
std::vector<UnitUtilisation> utilisation_units(const KernelProfile& k);

// Throws ProfileError when the profile has no utilisation metric (SpeedOfLight not collected).
Classification classify(const KernelProfile& k, const ClassifierConfig& config = {});

// The no-counters fallback: the task's minimum DRAM bytes and FLOPs against the device ceilings
// and a measured median time. Each kind's "utilisation" is its roofline time / measured time.
struct SolInput {
  double bytes = 0, flops = 0;
  bool tensor = false;       // FLOPs at the BF16 tensor peak (else FP32)
  double measured_us = 0;
  double dram_bandwidth_gbs = 0, fp32_tflops = 0, bf16_tflops = 0;
};
// Throws std::invalid_argument when the time or the ceilings are missing.
Classification classify_sol(const SolInput& in, const ClassifierConfig& config = {});

}  // namespace cudamaster::profile
