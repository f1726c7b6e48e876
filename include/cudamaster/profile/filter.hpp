// Owns the hardware-analysis filter: for each bottleneck class, the whitelist of metrics a
// Planner needs (with short human labels), and how values are shown compactly. What is not on
// the class's list stays out of the prompt; `--profile full` shows everything collected.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "cudamaster/profile/classify.hpp"
#include "cudamaster/profile/metrics.hpp"
#include "mskb/util/enum_names.hpp"

namespace cudamaster::profile {

// How a profile is shown (--profile): the class's whitelisted metrics, everything collected, or
// no profiling at all. The strings are the CLI values and the run store's profile mode.
enum class RenderMode { filtered, full, none };
RenderMode parse_render_mode(const std::string& s);  // filtered|full|none; throws std::invalid_argument
const char* to_string(RenderMode m);
void to_json(nlohmann::json& j, RenderMode m);
void from_json(const nlohmann::json& j, RenderMode& m);

struct WhitelistEntry {
  const char* metric;
  const char* label;
  double min_value = 0;  // shown only when the value reaches this (idle pipes are noise)
};
// The metrics shown for a class: the shared ones first, then the class's own.
std::vector<WhitelistEntry> whitelist(Bottleneck cls);

struct FilteredMetric {
  std::string metric;
  std::string label;
  double value = 0;
  std::string unit;   // base unit as exported
  std::string shown;  // "776.5 us", "85.83 %"
};
// The whitelisted metrics present in `k` (missing ones are skipped), in whitelist order.
std::vector<FilteredMetric> filter_metrics(const KernelProfile& k, Bottleneck cls);

// Compact one-line summaries that are part of every filtered rendering.
std::string stall_summary(const KernelProfile& k, std::size_t top = 3);  // "long_scoreboard 95 %, lg_throttle 5 %"
std::string occupancy_limits(const KernelProfile& k);  // "registers 6, warps 8, shared 32, blocks 32" (blocks/SM)

// "776.5 us" for 776512 ns, "4.13 TB/s" for bytes/s, "85.83 %"; integers stay integers.
std::string format_value(double value, const std::string& unit);
std::string format_number(double value);

}  // namespace cudamaster::profile

MSKB_DECLARE_VOCABULARY_SPECIALIZATIONS(cudamaster::profile::RenderMode)
