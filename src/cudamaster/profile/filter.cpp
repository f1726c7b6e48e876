#include "cudamaster/profile/filter.hpp"

#include <cmath>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

namespace cudamaster::profile {

namespace {
constexpr mskb::EnumName<RenderMode> kRenderModes[] = {
    {RenderMode::filtered, "filtered"}, {RenderMode::full, "full"}, {RenderMode::none, "none"}};
}  // namespace

RenderMode parse_render_mode(const std::string& s) {
  if (const std::optional<RenderMode> m = mskb::from_string<RenderMode>(s)) return *m;
  throw std::invalid_argument("--profile must be filtered, full or none (got '" + s + "')");
}

const char* to_string(RenderMode m) { return mskb::util::enum_name(kRenderModes, m); }
void to_json(nlohmann::json& j, RenderMode m) { j = to_string(m); }
void from_json(const nlohmann::json& j, RenderMode& m) { m = parse_render_mode(j.get<std::string>()); }

std::vector<WhitelistEntry> whitelist(Bottleneck cls) {
  std::vector<WhitelistEntry> w = {
      {"gpu__time_duration.sum", "duration"},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "compute throughput"},
      {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory throughput"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy"},
  };
  switch (cls) {
    case Bottleneck::compute:
      w.insert(w.end(), {
                            {"sm__inst_issued.avg.pct_of_peak_sustained_elapsed", "issue slots busy"},
                            {"sm__inst_executed.avg.per_cycle_active", "IPC"},
                            {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "FMA pipe", 1},
                            {"sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed", "FMA-heavy pipe", 1},
                            {"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", "ALU pipe", 1},
                            {"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", "FP64 pipe", 1},
                            {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", "tensor pipe", 1},
                            {"sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "XU pipe", 1},
                            {"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "LSU pipe", 1},
                            {"smsp__warps_eligible.avg.per_cycle_active", "eligible warps per cycle"},
                            {"smsp__thread_inst_executed_per_inst_executed.ratio", "active threads per instruction"},
                            {"launch__registers_per_thread", "registers per thread"},
                        });
      break;
    case Bottleneck::memory_bandwidth:
      w.insert(w.end(), {
                            {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput"},
                            {"dram__bytes.sum.per_second", "DRAM bandwidth"},
                            {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput"},
                            {"l1tex__throughput.avg.pct_of_peak_sustained_active", "L1 throughput"},
                            {"lts__t_sector_hit_rate.pct", "L2 hit rate"},
                            {"l1tex__t_sector_hit_rate.pct", "L1 hit rate"},
                            {"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "LSU pipe", 1},
                        });
      break;
    case Bottleneck::memory_latency:
      w.insert(w.end(), {
                            {"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput"},
                            {"lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput"},
                            {"lts__t_sector_hit_rate.pct", "L2 hit rate"},
                            {"l1tex__t_sector_hit_rate.pct", "L1 hit rate"},
                            {"sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy"},
                            {"smsp__warps_eligible.avg.per_cycle_active", "eligible warps per cycle"},
                            {"smsp__average_warp_latency_per_inst_issued.ratio", "warp cycles per issued instruction"},
                            {"launch__waves_per_multiprocessor", "waves per SM"},
                            {"launch__registers_per_thread", "registers per thread"},
                        });
      break;
  }
  return w;
}

std::string format_number(double v) {
  if (v == 0) return "0";
  if (std::fabs(v) < 1e7 && v == std::round(v)) return fmt::format("{:.0f}", v);
  if (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-3) return fmt::format("{:.4g}", v);
  if (std::fabs(v) >= 100) return fmt::format("{:.1f}", v);
  return fmt::format("{:.4g}", v);
}

std::string format_value(double v, const std::string& unit) {
  if (unit == "ns" && std::fabs(v) >= 1000) return format_number(std::round(v / 100.0) / 10.0) + " us";
  if (unit == "byte/s") {
    if (std::fabs(v) >= 1e12) return format_number(std::round(v / 1e10) / 100.0) + " TB/s";
    if (std::fabs(v) >= 1e9) return format_number(std::round(v / 1e7) / 100.0) + " GB/s";
  }
  if (unit == "hz" && std::fabs(v) >= 1e6) return format_number(std::round(v / 1e4) / 100.0) + " MHz";
  const std::string n = format_number(v);
  return unit.empty() ? n : n + " " + unit;
}

std::vector<FilteredMetric> filter_metrics(const KernelProfile& k, Bottleneck cls) {
  std::vector<FilteredMetric> out;
  for (const auto& e : whitelist(cls)) {
    const Metric* m = k.find(e.metric);
    if (!m || !m->is_number() || m->value < e.min_value) continue;
    out.push_back({e.metric, e.label, m->value, m->unit, format_value(m->value, m->unit)});
  }
  return out;
}

std::string stall_summary(const KernelProfile& k, std::size_t top) {
  const auto stalls = stall_reasons(k);
  std::string s;
  for (std::size_t i = 0; i < stalls.size() && i < top; ++i) {
    if (stalls[i].share < 0.05 && i > 0) break;
    if (!s.empty()) s += ", ";
    s += fmt::format("{} {:.0f} %", stalls[i].reason, 100 * stalls[i].share);
  }
  return s;
}

std::string occupancy_limits(const KernelProfile& k) {
  static const std::pair<const char*, const char*> limits[] = {{"launch__occupancy_limit_registers", "registers"},
                                                               {"launch__occupancy_limit_warps", "warps"},
                                                               {"launch__occupancy_limit_shared_mem", "shared"},
                                                               {"launch__occupancy_limit_blocks", "blocks"}};
  std::string s;
  for (const auto& [metric, label] : limits) {
    const auto v = k.number(metric);
    if (!v) continue;
    if (!s.empty()) s += ", ";
    s += fmt::format("{} {}", label, format_number(*v));
  }
  return s;
}

}  // namespace cudamaster::profile

MSKB_DEFINE_VOCABULARY_SPECIALIZATIONS(cudamaster::profile::RenderMode, cudamaster::profile::kRenderModes, "profile mode")
